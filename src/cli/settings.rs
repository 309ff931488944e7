//! Turns the policy flags into validated replay settings, one per preset. Raw flags end here.

use super::CliError;
use super::args::{Given, PolicyArgs, RuleTuning};
use crate::dataset::Dataset;
use crate::engine::Policy;
use crate::engine::settings::{
    Adjust, BootstrapMode, BudgetMeasure, Construction, Degenerate, Family, Fraction, Looks,
    Monitor, OrderKind, Preset, ReplaySettings, Rule, SettingError, Targets, parse_grid,
    parse_thresholds,
};

/// The settings of one replay and the label it is reported under.
pub struct NamedSettings {
    pub label: String,
    pub settings: ReplaySettings,
}

/// A setting's error prefixed by the flag it came from.
pub fn flag(name: &'static str) -> impl Fn(SettingError) -> CliError {
    move |error| CliError::Input(format!("{name}: {error}"))
}

/// The rule flags shared by the commands that take a policy.
pub struct RuleOverrides<'a> {
    pub rule: Option<&'a str>,
    pub tuning: &'a RuleTuning,
    pub monitor: Option<&'a str>,
    pub looks: Option<&'a str>,
    pub family: &'a str,
    pub adjust: &'a str,
}

/// Applies the rule, coverage, degenerate, bet-cap and monitoring overrides to a policy; true when
/// the policy differs from its preset's.
pub fn apply_overrides(
    policy: &mut crate::engine::Policy,
    flags: &RuleOverrides<'_>,
    bootstrap: BootstrapMode,
) -> Result<bool, CliError> {
    let tuning = flags.tuning;
    let mut changed = false;
    policy.degenerate = Degenerate::parse(&tuning.degenerate).map_err(flag("--degenerate"))?;
    if let Some(rule) = flags.rule {
        policy.rule = Rule::parse(rule, bootstrap).map_err(flag("--rule"))?;
        changed = true;
    }
    // A tuning the policy's rule does not read changes nothing: the label stays the preset's (the
    // flag is noted instead, `unused_rule_flags`).
    changed |= policy.degenerate != Degenerate::default() && takes_bootstrap(policy);
    let cap = fraction_within(&tuning.bet_cap, "--bet-cap", OPEN_UNIT)?;
    let min = fraction_within(&tuning.bet_min, "--bet-min", OPEN_UNIT)?;
    let max = fraction_within(&tuning.bet_max, "--bet-max", OPEN_UNIT)?;
    // Checked whatever the rule: a value that the anytime rule would refuse is a mistake under any
    // rule, not a setting to pass over.
    let open_unit = |f: Fraction| f.0 > 0 && f.0 < crate::engine::settings::FRACTION_UNITS;
    if !open_unit(cap) {
        return Err(CliError::Input(format!(
            "--bet-cap '{}' must be in (0, 1)",
            tuning.bet_cap
        )));
    }
    if !open_unit(min) || !open_unit(max) || min > max {
        return Err(CliError::Input(format!(
            "--bet-min '{}' and --bet-max '{}' must satisfy 0 < min <= max < 1",
            tuning.bet_min, tuning.bet_max
        )));
    }
    let stratified = policy.construction() == Some(Construction::Stratified);
    if let Rule::Anytime {
        cap: current,
        bet_min,
        bet_max,
    } = &mut policy.rule
    {
        changed |= if stratified {
            *bet_min != min || *bet_max != max
        } else {
            *current != cap
        };
        *current = cap;
        *bet_min = min;
        *bet_max = max;
    }
    if let Some(monitor) = flags.monitor {
        policy.monitor = Monitor::parse(monitor).map_err(flag("--monitor"))?;
        changed = true;
    }
    policy.family = Family::parse(flags.family).map_err(flag("--family"))?;
    policy.adjust = Adjust::parse(flags.adjust).map_err(flag("--adjust"))?;
    // As replay's settings check says it; a live decision (decide, watch, serve, run) read the
    // bootstrap's missing wealth as 0, so every baseline abstained.
    if policy.adjust == Adjust::EBh && !policy.rule.is_anytime() {
        return Err(CliError::Input(
            "--adjust e-bh needs the anytime rule, whose wealths are its e-values".to_string(),
        ));
    }
    changed |= policy.decides_families();
    if let Some(looks) = flags.looks {
        policy.looks = Looks::parse(looks).map_err(flag("--looks"))?;
        // Looks are when a sequential monitor watches; per-look monitoring reads each budget once,
        // so the flag changed nothing while the header said "(modified)".
        if policy.monitor == Monitor::PerLook {
            return Err(CliError::Input(format!(
                "--looks {looks} applies under sequential monitoring (--monitor sequential); this policy reads each budget of the grid once (per-look)"
            )));
        }
        changed = true;
    }
    let share = fraction_within(&tuning.coverage_share, "--coverage-share", HALF_OPEN_UNIT)?;
    if share.0 == 0 || share > Fraction::ONE {
        return Err(CliError::Input(format!(
            "--coverage-share '{}' must be in (0, 1]",
            tuning.coverage_share
        )));
    }
    changed |= share != policy.coverage_share;
    policy.coverage_share = share;
    match tuning.coverage.as_deref() {
        None => {}
        Some("on") => {
            policy.coverage_gate = true;
            changed = true;
        }
        Some("off") => {
            policy.coverage_gate = false;
            changed = true;
        }
        Some(other) => {
            return Err(CliError::Input(format!(
                "--coverage '{other}' must be on or off"
            )));
        }
    }
    Ok(changed)
}

/// The intervals a fraction flag may be in, as messages write them, and whether a value is in it.
type Interval = (&'static str, fn(f64) -> bool);
pub const OPEN_UNIT: Interval = ("(0, 1)", |v| v > 0.0 && v < 1.0);
const HALF_OPEN_UNIT: Interval = ("(0, 1]", |v| v > 0.0 && v <= 1.0);

/// A fraction flag that must lie in `interval`: one message, naming the interval, for every value
/// outside it (a value outside [0, 1] would otherwise be told [0, 1], and 0 told the interval).
pub fn fraction_within(
    text: &str,
    flag: &str,
    (interval, within): Interval,
) -> Result<Fraction, CliError> {
    if let Ok(value) = text.trim().parse::<f64>()
        && !within(value)
    {
        return Err(CliError::Input(format!(
            "{flag} '{text}' must be in {interval}"
        )));
    }
    Ok(Fraction::parse(text, flag)?)
}

/// One set of settings per preset, with the overrides applied; messages name the flag. A rule flag
/// that no preset's policy reads is noted on stderr ([`unused_rule_flags`]).
pub fn replay_settings(
    args: &PolicyArgs,
    dataset: &Dataset,
) -> Result<Vec<NamedSettings>, CliError> {
    let bootstrap = BootstrapMode::parse(&args.bootstrap)?;
    let tail = fraction_within(&args.tail, "--tail", OPEN_UNIT)?;
    let thresholds = parse_thresholds(&args.thresholds).map_err(flag("--thresholds"))?;
    let grid = parse_grid(&args.grid).map_err(flag("--grid"))?;
    let measure = BudgetMeasure::parse(&args.budget_by).map_err(flag("--budget-by"))?;
    let targets = Targets {
        alpha: Fraction::parse(&args.alpha, "--alpha")?,
        gamma: Fraction::parse(&args.gamma, "--gamma")?,
        eta: Fraction::parse(&args.eta, "--eta")?,
    };
    let group_column = dataset
        .resolve_group_column(args.group_col.as_deref())
        .map_err(|e| CliError::Input(format!("--group-col: {e}")))?;
    let order = args
        .order
        .as_deref()
        .map(OrderKind::parse)
        .transpose()
        .map_err(flag("--order"))?;
    let mut out = Vec::new();
    for name in &args.preset {
        let preset = Preset::parse(name.trim()).map_err(flag("--preset"))?;
        let mut policy = preset.policy(bootstrap, tail);
        if let Some(order) = order {
            policy.order = order;
        }
        let flags = RuleOverrides {
            rule: args.rule.as_deref(),
            tuning: &args.tuning,
            monitor: args.monitor.as_deref(),
            looks: args.looks.as_deref(),
            family: &args.family,
            adjust: &args.adjust,
        };
        let overridden = apply_overrides(&mut policy, &flags, bootstrap)? || order.is_some();
        let settings = ReplaySettings {
            policy,
            thresholds: thresholds.clone(),
            grid: grid.clone(),
            measure,
            orders: args.orders,
            seed: args.seed,
            group_column: group_column.clone(),
            targets,
        };
        settings.validate(dataset)?;
        let label = if overridden {
            format!("{} (modified)", preset.name())
        } else {
            preset.name().to_string()
        };
        out.push(NamedSettings { label, settings });
    }
    let policies: Vec<(&str, &Policy)> = out
        .iter()
        .map(|named| (named.label.as_str(), &named.settings.policy))
        .collect();
    for note in unused_rule_flags(&args.given, &policies) {
        eprintln!("note: {note}");
    }
    Ok(out)
}

/// A rule flag that only some policies read: its clap id, the flag, what it sets, whether a policy
/// reads it, and the policy's setting that keeps it from doing so, in words.
struct RuleFlag {
    id: &'static str,
    flag: &'static str,
    sets: &'static str,
    read_by: fn(&Policy) -> bool,
    because: fn(&Policy) -> String,
}

fn takes_bootstrap(policy: &Policy) -> bool {
    matches!(policy.rule, Rule::Bootstrap(_))
}

// The coverage share is not among them: the coverage-failure rate (and a live record's required
// counts) read its quotas whether the gate is on or off.
const RULE_FLAGS: [RuleFlag; 6] = [
    RuleFlag {
        id: "bootstrap",
        flag: "--bootstrap",
        sets: "the bootstrap rule's tails",
        read_by: takes_bootstrap,
        because: rule_words,
    },
    RuleFlag {
        id: "degenerate",
        flag: "--degenerate",
        sets: "what the bootstrap rule does with no discordant task",
        read_by: takes_bootstrap,
        because: rule_words,
    },
    RuleFlag {
        id: "tail",
        flag: "--tail",
        sets: "the tail cutoff a of every rule but forced",
        read_by: |policy| policy.rule.uses_tail(),
        because: rule_words,
    },
    RuleFlag {
        id: "bet_cap",
        flag: "--bet-cap",
        sets: "the §9 anytime rule's bet cap (uniform and other non-stratified orders)",
        read_by: |policy| {
            policy.rule.is_anytime() && policy.construction() != Some(Construction::Stratified)
        },
        because: rule_words,
    },
    RuleFlag {
        id: "bet_min",
        flag: "--bet-min",
        sets: "the §9a anytime rule's bet scale (stratified orders)",
        read_by: |policy| policy.construction() == Some(Construction::Stratified),
        because: rule_words,
    },
    RuleFlag {
        id: "bet_max",
        flag: "--bet-max",
        sets: "the §9a anytime rule's bet scale (stratified orders)",
        read_by: |policy| policy.construction() == Some(Construction::Stratified),
        because: rule_words,
    },
];

/// The rule of a policy in a few words, for a note: the name, and for the anytime rule the
/// construction its order calls for.
fn rule_words(policy: &Policy) -> String {
    let rule = match policy.construction() {
        Some(Construction::Stratified) => "anytime §9a (stratified order)".to_string(),
        Some(Construction::Uniform) => "anytime §9 (uniform order)".to_string(),
        Some(Construction::Descriptive) => {
            format!("anytime §9 ({} order, descriptive)", policy.order.name())
        }
        None => policy.rule.name().to_string(),
    };
    format!("the rule is {rule}")
}

/// Notes for the rule flags the command line wrote that none of `policies` (label, policy) reads:
/// `--bootstrap` under the anytime rule, `--bet-cap` under §9a… Such a flag changes nothing, and a user who wrote it expects it to: said rather than passed
/// over. A flag left at its default is never named.
pub fn unused_rule_flags(given: &Given, policies: &[(&str, &Policy)]) -> Vec<String> {
    RULE_FLAGS
        .iter()
        .filter(|flag| given.has(flag.id))
        .filter(|flag| !policies.iter().any(|(_, policy)| (flag.read_by)(policy)))
        .map(|flag| {
            let because = match policies {
                [(_, policy)] => format!("here {}", (flag.because)(policy)),
                _ => {
                    let each: Vec<String> = policies
                        .iter()
                        .map(|(label, policy)| format!("{label}: {}", (flag.because)(policy)))
                        .collect();
                    format!("no policy here reads it ({})", each.join("; "))
                }
            };
            format!(
                "{} is not used: it sets {}, and {because}",
                flag.flag, flag.sets
            )
        })
        .collect()
}
