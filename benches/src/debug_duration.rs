//! Reading back a `Duration` printed with `{:?}`, which is how bellperson logs
//! its phase times ("1.234567s", "12.5ms", "830µs", "17ns": the whole value,
//! trailing zeros of the fraction dropped).

use std::time::Duration;

/// The duration a `{:?}` rendering denotes, exactly; `None` for anything else.
pub fn parse(text: &str) -> Option<Duration> {
    let digits_end = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(digits_end);
    let unit_nanos: u64 = match unit {
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        // U+00B5 is what std prints; U+03BC is accepted as the same unit.
        "µs" | "μs" => 1_000,
        "ns" => 1,
        _ => return None,
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let whole: u64 = whole.parse().ok()?;
    // Each fraction digit divides the unit by ten; beyond a nanosecond is not a Debug rendering.
    let mut scale = unit_nanos;
    let mut fraction_nanos = 0u64;
    for digit in fraction.bytes() {
        if scale == 1 || !digit.is_ascii_digit() {
            return None;
        }
        scale /= 10;
        fraction_nanos += u64::from(digit - b'0') * scale;
    }
    let whole_nanos = u128::from(whole) * u128::from(unit_nanos);
    let total = whole_nanos + u128::from(fraction_nanos);
    let secs = u64::try_from(total / 1_000_000_000).ok()?;
    Some(Duration::new(secs, (total % 1_000_000_000) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(text: &str, expected: Option<Duration>) {
        assert_eq!(parse(text), expected, "{text:?}");
    }

    #[test]
    fn renderings_and_non_renderings() {
        check("0ns", Some(Duration::ZERO));
        check("17ns", Some(Duration::from_nanos(17)));
        check("830µs", Some(Duration::from_micros(830)));
        check("830μs", Some(Duration::from_micros(830)));
        check("1.5µs", Some(Duration::from_nanos(1_500)));
        check("12.5ms", Some(Duration::from_micros(12_500)));
        check("1.000000001s", Some(Duration::new(1, 1)));
        check("18446744073709551615s", Some(Duration::new(u64::MAX, 0)));
        check("1.5ns", None);
        check("1.0000000001s", None);
        check("1.5", None);
        check("ms", None);
        check("1.2.3ms", None);
        check("1h", None);
        check("", None);
    }

    proptest! {
        /// std's own formatter is the reference: every rendering reads back exactly.
        #[test]
        fn reads_back_what_debug_prints(secs in 0u64..1_000_000, nanos in 0u32..1_000_000_000, small in 0u32..3) {
            // Also cover values under a second, where std switches units.
            let d = if small == 0 { Duration::new(secs, nanos) } else { Duration::from_nanos(u64::from(nanos) >> (small * 8)) };
            prop_assert_eq!(parse(&format!("{d:?}")), Some(d));
        }
    }
}
