//! No input makes loading panic: random text, random mutations of a valid
//! file, and random overrides all end in `Ok` or a well-formed error.

use std::path::Path;

use proptest::prelude::*;
use scenario::{from_str, Override};

const VALID: &str = r#"name = "fuzz"
seed = 1
duration = "60s"
warmup = "5s"
sample_interval = "10ms"
[link]
rate = "40Mbit"
rtt = "100ms"
buffer = "0.25bdp"
burst = "100KB"
loss = "1%"
line_rate = "1Gbit"
ack_delay = "0ms"
[link.loss_unused]
[transport]
ack_policy = "every-2"
max_ack_delay = "25ms"
datagram = "1500B"
[[flow]]
cc = "bbr"
start = "0s"
size = "1GB"
count = 1
rtt = "100ms"
[[flow]]
cc = "cubic:beta=0.7"
"#;

/// The valid document (without the deliberately unknown table).
fn valid() -> String {
    VALID.replace("[link.loss_unused]\n", "")
}

/// Pieces that make interesting mutations.
const TOKENS: &[&str] = &[
    "\"",
    "=",
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    ",",
    ".",
    "\n",
    "#",
    "-",
    "0",
    "1",
    "%",
    "s",
    "ms",
    "bdp",
    "pkt",
    "Mbit",
    "KB",
    "1e400",
    "nan",
    "inf",
    "true",
    "\"\"",
    "[link]",
    "[[flow]]",
    "[link.loss]",
    "p = 1",
    "model = \"gilbert-elliott\"",
    "schedule = [[\"0s\",\"1Mbit\"]]",
    "trace = \"/dev/null\"",
    "cc = \"vegas\"",
    "count = 0",
    "count = 99999999999",
    "rate = \"0bit\"",
    "99999999999999999999999Gbit",
    "\u{0}",
    "é",
    "\t",
];

fn mutate(base: &str, ops: &[(u8, usize, usize)]) -> String {
    let mut s: Vec<char> = base.chars().collect();
    for &(kind, pos, tok) in ops {
        let at = if s.is_empty() { 0 } else { pos % (s.len() + 1) };
        match kind % 3 {
            0 => {
                let t = TOKENS[tok % TOKENS.len()];
                for (i, c) in t.chars().enumerate() {
                    s.insert(at + i, c);
                }
            }
            1 => {
                let end = (at + tok % 8).min(s.len());
                s.drain(at..end);
            }
            _ => {
                if at < s.len() {
                    s[at] = TOKENS[tok % TOKENS.len()].chars().next().unwrap_or('x');
                }
            }
        }
    }
    s.into_iter().collect()
}

fn check_no_panic(text: &str, overrides: &[Override]) {
    match from_str(text, Path::new("fuzz/f.toml"), overrides) {
        Ok(s) => {
            // A loaded scenario's document loads again.
            assert!(
                from_str(&s.document, Path::new("fuzz/f.toml"), &[]).is_ok(),
                "{}",
                s.document
            );
        }
        Err(e) => {
            let shown = e.to_string();
            assert!(shown.starts_with("fuzz/f.toml"), "{shown}");
            assert!(!e.message.is_empty());
        }
    }
}

#[test]
fn the_fuzz_base_is_valid() {
    from_str(&valid(), Path::new("f.toml"), &[]).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        check_no_panic(&text, &[]);
    }

    #[test]
    fn random_toml_like_text_never_panics(text in "([a-z_.]{1,12} = (\"[0-9a-zA-Z.%]{0,8}\"|[0-9.-]{1,6}|true|\\[\\])\n|\\[\\[?[a-z.]{1,8}\\]\\]?\n){0,12}") {
        check_no_panic(&text, &[]);
    }

    #[test]
    fn mutations_of_a_valid_file_never_panic(
        ops in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..6),
        unknown_table in any::<bool>(),
    ) {
        let base = if unknown_table { VALID.to_string() } else { valid() };
        check_no_panic(&mutate(&base, &ops), &[]);
    }

    #[test]
    fn random_overrides_never_panic(
        key in "(name|seed|duration|link|link\\.rate|link\\.buffer|link\\.loss|link\\.loss\\.p|link\\.schedule|link\\.schedule\\.0|flow|flow\\.[0-9]|flow\\.[0-9]\\.(cc|count|rtt|size|start)|transport\\.datagram|[a-z.\\[\\]0-9]{0,12})",
        value in "\\PC{0,20}|\\{[a-z]{1,5} ?= ?\"[0-9a-z%]{0,5}\"\\}|\\[\\[\"0s\", ?\"[0-9]{1,3}Mbit\"\\]\\]",
    ) {
        check_no_panic(&valid(), &[Override::new(key, value)]);
    }

    #[test]
    fn units_never_panic(text in "\\PC{0,30}") {
        let _ = scenario::units::parse_rate(&text);
        let _ = scenario::units::parse_rate_or_zero(&text);
        let _ = scenario::units::parse_size(&text);
        let _ = scenario::units::parse_buffer(&text);
        let _ = scenario::units::parse_duration(&text);
        let _ = scenario::units::parse_probability(&text);
        let _ = scenario::units::parse_fraction(&text);
    }

    #[test]
    fn numbers_with_units_never_panic(num in "[0-9]{0,40}(\\.[0-9]{0,40})?", unit in "(bit|kbit|Mbit|Gbit|B|KB|GiB|ns|us|ms|s|min|h|pkt|bdp|%)") {
        let text = format!("{num}{unit}");
        let _ = scenario::units::parse_rate(&text);
        let _ = scenario::units::parse_size(&text);
        let _ = scenario::units::parse_buffer(&text);
        let _ = scenario::units::parse_duration(&text);
        let _ = scenario::units::parse_probability(&text);
    }
}
