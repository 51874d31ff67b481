//! Calendar arithmetic on unix seconds (UTC, proleptic Gregorian), without a date crate.

/// Seconds in a day.
pub const SECONDS_PER_DAY: i64 = 86_400;

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
pub const fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = if year >= 0 { year } else { year - 399 } / 400;
    let year_of_era = year - era * 400;
    let month = month as i64;
    let shifted_month = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * shifted_month + 2) / 5 + day as i64 - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The civil date `(year, month, day)` of a day number (Howard Hinnant's `civil_from_days`).
pub const fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month as u32, day as u32)
}

/// The day number (days since 1970-01-01) containing `time`.
pub const fn day_of(time: i64) -> i64 {
    time.div_euclid(SECONDS_PER_DAY)
}

/// Monday = 0 ... Sunday = 6 (1970-01-01 was a Thursday).
pub const fn weekday(day: i64) -> i64 {
    (day + 3).rem_euclid(7)
}

/// The time of Monday 00:00 UTC of the week containing `time`.
pub const fn week_start(time: i64) -> i64 {
    let day = day_of(time);
    (day - weekday(day)) * SECONDS_PER_DAY
}

/// `2025-06-30`.
pub fn iso_date(time: i64) -> String {
    let (year, month, day) = civil_from_days(day_of(time));
    format!("{year:04}-{month:02}-{day:02}")
}

/// `2025-06-30T13:30:00Z`.
pub fn iso_datetime(time: i64) -> String {
    let seconds = time.rem_euclid(SECONDS_PER_DAY);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        iso_date(time),
        seconds / 3600,
        seconds % 3600 / 60,
        seconds % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates_convert_both_ways() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2025, 1, 1) * SECONDS_PER_DAY, 1_735_689_600);
        assert_eq!(
            days_from_civil(2025, 6, 30) * SECONDS_PER_DAY,
            1_751_241_600
        );
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        for day in -800..800 {
            let (y, m, d) = civil_from_days(day * 37);
            assert_eq!(days_from_civil(y, m, d), day * 37);
        }
    }

    #[test]
    fn weekdays_and_weeks() {
        assert_eq!(weekday(days_from_civil(2025, 6, 30)), 0, "a Monday");
        assert_eq!(weekday(days_from_civil(2025, 6, 29)), 6, "a Sunday");
        let wednesday = days_from_civil(2025, 7, 2) * SECONDS_PER_DAY + 3600;
        assert_eq!(
            week_start(wednesday),
            days_from_civil(2025, 6, 30) * SECONDS_PER_DAY
        );
    }

    #[test]
    fn iso_formats() {
        assert_eq!(iso_date(1_751_290_200), "2025-06-30");
        assert_eq!(iso_datetime(1_751_290_200), "2025-06-30T13:30:00Z");
        assert_eq!(iso_datetime(-1), "1969-12-31T23:59:59Z");
    }
}
