//! The `pareval` binary: everything happens in the library; this only hands over the exit code.

fn main() -> std::process::ExitCode {
    pareval::cli::main_exit()
}
