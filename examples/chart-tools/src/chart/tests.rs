//! Every operation of the demo chart: success, and each error it declares.

use std::sync::{Arc, Mutex};

use super::*;

/// 2025-01-02 00:00 UTC, a Thursday inside the loaded daily bars.
const JAN_2: i64 = 1_735_776_000;
/// 2025-06-30 13:30 UTC, the first minute of the last US session.
const SESSION_OPEN: i64 = 1_751_290_200;
/// 2025-06-30 00:00 UTC, the last loaded day.
const LAST_DAY: i64 = 1_751_241_600;

fn json<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).expect("serializable")
}

fn anchor(time: i64, price: f64) -> Anchor {
    Anchor { time, price }
}

#[test]
fn the_demo_chart_is_deterministic() {
    let (a, b) = (Chart::demo(), Chart::demo());
    assert_eq!(
        json(&a.panes_list().expect("panes")),
        json(&b.panes_list().expect("panes"))
    );
    for symbol in ["AAPL", "MSFT", "NVDA", "BTCUSD", "EURUSD"] {
        let bars_a = a.market_bars_query(symbol, Interval::D1, None, None, Some(1000));
        let bars_b = b.market_bars_query(symbol, Interval::D1, None, None, Some(1000));
        assert_eq!(json(&bars_a.expect("bars")), json(&bars_b.expect("bars")));
    }
    // A pinned value: a change to the generator changes it, and the examples may then break.
    let last = a
        .market_bars_query("AAPL", Interval::D1, None, None, Some(1))
        .expect("bars");
    assert_eq!(last.bars[0].time, LAST_DAY);
    assert_eq!(last.bars[0].close, 203.37);
}

#[test]
fn the_chart_can_be_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Chart>();
}

#[test]
fn bars_are_consistent() {
    let chart = Chart::demo();
    for symbol in ["AAPL", "BTCUSD", "EURUSD"] {
        for interval in Interval::ALL {
            let query = chart
                .market_bars_query(symbol, *interval, None, None, Some(1000))
                .expect("bars");
            assert!(!query.bars.is_empty(), "{symbol} {interval}");
            for pair in query.bars.windows(2) {
                assert!(pair[0].time < pair[1].time, "{symbol} {interval}: sorted");
            }
            for bar in &query.bars {
                assert!(bar.low > 0.0, "{symbol} {interval}: positive prices");
                assert!(
                    bar.high >= bar.open.max(bar.close),
                    "{symbol} {interval}: {bar:?}"
                );
                assert!(
                    bar.low <= bar.open.min(bar.close),
                    "{symbol} {interval}: {bar:?}"
                );
            }
        }
        // The last daily bar is the session's minutes.
        let daily = chart
            .market_bars_query(symbol, Interval::D1, None, None, Some(1))
            .expect("d");
        let minutes = chart.market_timeshare_query(symbol).expect("timeshare");
        assert_eq!(daily.bars[0].close, minutes.last_price);
        let volume: u64 = minutes.points.iter().map(|p| p.volume).sum();
        assert_eq!(daily.bars[0].volume, volume);
    }
}

#[test]
fn stocks_skip_weekends_and_crypto_does_not() {
    let chart = Chart::demo();
    let weekday = |t: i64| (t / 86_400 + 3).rem_euclid(7);
    let aapl = chart
        .market_bars_query("AAPL", Interval::D1, None, None, Some(1000))
        .expect("b");
    assert_eq!(aapl.bars.len(), market::DAILY_BARS);
    assert!(aapl.bars.iter().all(|b| weekday(b.time) < 5));
    let btc = chart
        .market_bars_query("BTCUSD", Interval::D1, None, None, Some(1000))
        .expect("b");
    assert_eq!(btc.bars.len(), market::DAILY_BARS);
    assert!(btc.bars.iter().any(|b| weekday(b.time) >= 5));
    assert_eq!(btc.loaded.last, "2025-06-30");
}

#[test]
fn instruments_are_found_by_symbol_or_name() {
    let chart = Chart::demo();
    let found = chart.instruments_query_name("apple", None);
    assert_eq!(json(&found)["instruments"][0]["symbol"], "AAPL");
    assert_eq!(json(&found)["instruments"][0]["exchange"], "NASDAQ");
    let found = chart.instruments_query_name("usd", None);
    let symbols: Vec<_> = found.instruments.iter().map(|i| i.symbol).collect();
    assert_eq!(symbols, ["BTCUSD", "EURUSD"]);
    let found = chart.instruments_query_name("corporation", Some(1));
    assert_eq!(found.instruments.len(), 1);
    // An exact symbol ranks before names that merely contain it.
    let found = chart.instruments_query_name("msft", None);
    assert_eq!(found.instruments[0].symbol, "MSFT");
    assert!(
        chart
            .instruments_query_name("gold", None)
            .instruments
            .is_empty()
    );
}

#[test]
fn bars_query_windows_and_limits() {
    let chart = Chart::demo();
    let query = chart
        .market_bars_query(
            "aapl",
            Interval::D1,
            Some(JAN_2),
            Some(JAN_2 + 6 * 86_400),
            None,
        )
        .expect("bars");
    assert_eq!(query.symbol, "AAPL");
    // Thursday, Friday, Monday, Tuesday, Wednesday.
    assert_eq!(query.matched, 5);
    assert_eq!(query.bars.first().map(|b| b.time), Some(JAN_2));
    let limited = chart
        .market_bars_query("AAPL", Interval::D1, None, None, Some(3))
        .expect("bars");
    assert_eq!((limited.matched, limited.bars.len()), (250, 3));
    assert_eq!(limited.loaded.first, "2024-07-16");
    assert_eq!(limited.loaded.last, "2025-06-30");
    let weekly = chart
        .market_bars_query("AAPL", Interval::W1, None, None, None)
        .expect("bars");
    assert!(
        weekly
            .bars
            .iter()
            .all(|b| (b.time / 86_400 + 3).rem_euclid(7) == 0)
    );
    let hourly = chart
        .market_bars_query("AAPL", Interval::H1, None, None, None)
        .expect("bars");
    assert_eq!(hourly.loaded.first, "2025-06-30T13:00:00Z");
    assert_eq!(hourly.bars.len(), 7);
}

#[test]
fn bars_query_errors() {
    let chart = Chart::demo();
    let error = chart
        .market_bars_query("AAPX", Interval::D1, None, None, None)
        .expect_err("x");
    assert_eq!(error.code(), "INSTRUMENT_NOT_FOUND");
    assert_eq!(
        error.detail(),
        "No instrument `AAPX`. Known symbols: AAPL, BTCUSD, EURUSD, MSFT, NVDA."
    );
    let error = chart
        .market_bars_query("AAPL", Interval::D1, Some(0), Some(86_400 * 365), None)
        .expect_err("1970");
    assert_eq!(error.code(), "DATE_OUT_OF_RANGE");
    assert_eq!(
        error.detail(),
        "1970-01-01 to 1971-01-01 is outside the loaded range of the 1d bars of AAPL: \
         2024-07-16 to 2025-06-30."
    );
    let error = chart
        .market_bars_query("AAPL", Interval::D1, Some(JAN_2), Some(JAN_2 - 1), None)
        .expect_err("reversed");
    assert_eq!(error.code(), "INVALID_TIME_RANGE");
    assert_eq!(
        error.detail(),
        "`from` (2025-01-02T00:00:00Z) is after `to` (2025-01-01T23:59:59Z)."
    );
    let error = chart
        .market_bars_query("AAPL", Interval::M5, Some(JAN_2), Some(JAN_2 + 3600), None)
        .expect_err("intraday is the last session only");
    assert!(
        error
            .detail()
            .contains("the 5m bars of AAPL: 2025-06-30T13:30:00Z"),
        "{error}"
    );
    // A window that overlaps the loaded bars only in part is answered with what overlaps.
    let partial = chart
        .market_bars_query("AAPL", Interval::M5, Some(JAN_2), None, None)
        .expect("overlap");
    assert_eq!(partial.matched, 78);
}

#[test]
fn timeshare_has_every_minute_and_a_running_average() {
    let chart = Chart::demo();
    let timeshare = chart.market_timeshare_query("AAPL").expect("timeshare");
    assert_eq!(timeshare.points.len(), 390);
    assert_eq!(timeshare.date, "2025-06-30");
    assert_eq!(timeshare.session.first, "2025-06-30T13:30:00Z");
    assert_eq!(timeshare.session.last, "2025-06-30T19:59:00Z");
    let (low, high) = timeshare
        .points
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            (lo.min(p.price), hi.max(p.price))
        });
    for point in &timeshare.points {
        assert!(point.average_price >= low - 1.0 && point.average_price <= high + 1.0);
    }
    assert_eq!(
        timeshare.change,
        (timeshare.last_price * 100.0 - timeshare.previous_close * 100.0).round() / 100.0
    );
    assert_eq!(
        chart
            .market_timeshare_query("BTCUSD")
            .expect("btc")
            .points
            .len(),
        1440
    );
    let error = chart.market_timeshare_query("TSLA").expect_err("unknown");
    assert_eq!(error.code(), "INSTRUMENT_NOT_FOUND");
}

#[test]
fn timeshare_ranges() {
    let chart = Chart::demo();
    let first_hour = chart
        .market_timeshare_range_query("AAPL", SESSION_OPEN, SESSION_OPEN + 3599)
        .expect("r");
    assert_eq!(first_hour.points.len(), 60);
    let whole = chart.market_timeshare_query("AAPL").expect("whole");
    assert_eq!(
        first_hour.points[..],
        whole.points[..60],
        "the average runs from the open"
    );
    let error = chart
        .market_timeshare_range_query("AAPL", JAN_2, JAN_2 + 60)
        .expect_err("old");
    assert_eq!(error.code(), "DATE_OUT_OF_RANGE");
    assert_eq!(
        error.detail(),
        "2025-01-02T00:00:00Z to 2025-01-02T00:01:00Z is outside the loaded range of the last \
         session of AAPL: 2025-06-30T13:30:00Z to 2025-06-30T19:59:00Z."
    );
    let error = chart
        .market_timeshare_range_query("AAPL", SESSION_OPEN + 60, SESSION_OPEN)
        .expect_err("");
    assert_eq!(error.code(), "INVALID_TIME_RANGE");
    let error = chart
        .market_timeshare_range_query("XYZ", 0, 1)
        .expect_err("unknown");
    assert_eq!(error.code(), "INSTRUMENT_NOT_FOUND");
}

#[test]
fn panes_are_listed_with_their_content() {
    let chart = Chart::demo();
    let panes = json(&chart.panes_list().expect("panes"));
    assert_eq!(panes["panes"][0]["id"], "main");
    assert_eq!(panes["panes"][0]["kind"], "price");
    assert_eq!(panes["panes"][0]["indicators"][0]["label"], "SMA 20");
    assert_eq!(
        panes["panes"][0]["drawings"],
        serde_json::json!(["d1", "d2"])
    );
    assert_eq!(
        panes["panes"][0]["comparisons"],
        serde_json::json!(["MSFT"])
    );
    assert_eq!(panes["panes"][1]["id"], "lower");
    assert_eq!(panes["panes"][1]["indicators"][0]["label"], "RSI 14");
    assert_eq!(panes["panes"][1]["loaded"]["first"], "2024-07-16");
}

#[test]
fn indicators_are_queried_per_pane() {
    let chart = Chart::demo();
    let query = chart
        .indicators_query("lower", Some(IndicatorName::Rsi), Some(5))
        .expect("rsi");
    assert_eq!(query.indicators.len(), 1);
    let points = &query.indicators[0].points;
    assert_eq!(points.len(), 5);
    assert_eq!(points.last().map(|p| p.time), Some(LAST_DAY));
    assert!(
        points
            .iter()
            .all(|p| (0.0..=100.0).contains(&p.values["rsi"]))
    );
    let all = chart.indicators_query("main", None, None).expect("all");
    assert_eq!(all.indicators[0].label, "SMA 20");
    assert_eq!(all.indicators[0].points.len(), 20);
    // The SMA equals the mean of the last 20 closes.
    let closes = chart
        .market_bars_query("AAPL", Interval::D1, None, None, Some(20))
        .expect("b");
    let mean = closes.bars.iter().map(|b| b.close).sum::<f64>() / 20.0;
    let sma = all.indicators[0]
        .points
        .last()
        .map(|p| p.values["sma"])
        .expect("a value");
    assert!((sma - mean).abs() < 1e-4, "{sma} vs {mean}");

    let error = chart
        .indicators_query("upper", None, None)
        .expect_err("no pane");
    assert_eq!(error.code(), "PANE_NOT_FOUND");
    assert_eq!(
        error.detail(),
        "No pane `upper`. Valid pane IDs: main, lower."
    );
    let error = chart
        .indicators_query("main", Some(IndicatorName::Macd), None)
        .expect_err("x");
    assert_eq!(error.code(), "INDICATOR_NOT_FOUND");
    assert_eq!(
        error.detail(),
        "Pane `main` shows no `macd` indicator. Indicators on it: SMA 20."
    );
}

#[test]
fn panes_are_created_until_the_limit() {
    let mut chart = Chart::demo();
    let pane = chart
        .pane_create(
            PaneKind::Indicator,
            None,
            None,
            &[IndicatorRequest::new(IndicatorName::Macd)],
        )
        .expect("created");
    assert_eq!(
        (pane.id.as_str(), pane.symbol.as_str(), pane.interval),
        ("p1", "AAPL", Interval::D1)
    );
    assert_eq!(pane.indicators[0].label, "MACD 12 26 9");
    let macd = chart
        .indicators_query("p1", Some(IndicatorName::Macd), Some(1))
        .expect("macd");
    assert_eq!(
        macd.indicators[0].points[0]
            .values
            .keys()
            .copied()
            .collect::<Vec<_>>(),
        ["histogram", "macd", "signal"]
    );
    let pane = chart
        .pane_create(PaneKind::Price, Some("btcusd"), Some(Interval::H1), &[])
        .expect("created");
    assert_eq!((pane.id.as_str(), pane.symbol.as_str()), ("p2", "BTCUSD"));
    assert_eq!(pane.loaded.first, "2025-06-30T00:00:00Z");

    let error = chart
        .pane_create(PaneKind::Price, Some("GOLD"), None, &[])
        .expect_err("x");
    assert_eq!(error.code(), "INSTRUMENT_NOT_FOUND");
    let bad = IndicatorRequest::with_params(
        IndicatorName::Ema,
        IndicatorParams {
            signal_period: Some(3),
            ..Default::default()
        },
    );
    let error = chart
        .pane_create(PaneKind::Indicator, None, None, &[bad])
        .expect_err("x");
    assert_eq!(error.code(), "INDICATOR_PARAMETERS_INVALID");
    assert_eq!(
        chart.panes_list().expect("panes").panes.len(),
        4,
        "failed calls change nothing"
    );

    chart
        .pane_create(PaneKind::Price, None, None, &[])
        .expect("p3");
    chart
        .pane_create(PaneKind::Price, None, None, &[])
        .expect("p4");
    let error = chart
        .pane_create(PaneKind::Price, None, None, &[])
        .expect_err("full");
    assert_eq!(error.code(), "PANE_LIMIT_REACHED");
    assert_eq!(
        error.detail(),
        "The chart already has 6 panes, the most it holds."
    );
}

#[test]
fn pane_content_is_replaced() {
    let mut chart = Chart::demo();
    let pane = chart
        .pane_replace_content("main", Some("NVDA"), None, None)
        .expect("replaced");
    assert_eq!(
        (pane.symbol.as_str(), pane.interval),
        ("NVDA", Interval::D1)
    );
    assert_eq!(pane.indicators[0].label, "SMA 20", "indicators are kept");
    assert_eq!(pane.comparisons, ["MSFT"]);
    // Showing the compared symbol itself drops that comparison.
    let pane = chart
        .pane_replace_content("main", Some("MSFT"), None, None)
        .expect("replaced");
    assert!(pane.comparisons.is_empty());
    let bands = IndicatorRequest::with_params(
        IndicatorName::BollingerBands,
        IndicatorParams {
            std_dev: Some(2.5),
            ..Default::default()
        },
    );
    let pane = chart
        .pane_replace_content("lower", None, Some(Interval::M15), Some(&[bands]))
        .expect("replaced");
    assert_eq!(pane.interval, Interval::M15);
    assert_eq!(pane.indicators[0].label, "BB 20 2.5");
    let pane = chart
        .pane_replace_content("lower", None, None, Some(&[]))
        .expect("emptied");
    assert!(pane.indicators.is_empty());

    let error = chart
        .pane_replace_content("side", Some("AAPL"), None, None)
        .expect_err("x");
    assert_eq!(error.code(), "PANE_NOT_FOUND");
    let error = chart
        .pane_replace_content("main", Some("AAPX"), None, None)
        .expect_err("x");
    assert_eq!(error.code(), "INSTRUMENT_NOT_FOUND");
    let error = chart
        .pane_replace_content("main", None, None, None)
        .expect_err("nothing");
    assert_eq!(error.code(), "NOTHING_TO_CHANGE");
    let bad = IndicatorRequest::with_params(
        IndicatorName::Rsi,
        IndicatorParams {
            period: Some(500),
            ..Default::default()
        },
    );
    let error = chart
        .pane_replace_content("main", None, None, Some(&[bad]))
        .expect_err("x");
    assert_eq!(error.code(), "INDICATOR_PARAMETERS_INVALID");
}

#[test]
fn panes_clear_keeps_the_main_pane() {
    let mut chart = Chart::demo();
    chart
        .pane_create(PaneKind::Price, None, None, &[])
        .expect("p1");
    chart.comparison_create("NVDA", Some("p1")).expect("c2");
    let cleared = chart.panes_clear().expect("cleared");
    assert_eq!(cleared.removed_panes, ["lower", "p1"]);
    assert_eq!(cleared.removed_drawings, ["d3"]);
    assert_eq!(cleared.removed_comparisons, ["c2"]);
    assert_eq!(cleared.panes.len(), 1);
    assert_eq!(cleared.panes[0].drawings, ["d1", "d2"]);
    let again = chart.panes_clear().expect("idempotent");
    assert!(again.removed_panes.is_empty());
    // IDs are never reused.
    let pane = chart
        .pane_create(PaneKind::Price, None, None, &[])
        .expect("p2");
    assert_eq!(pane.id, "p2");
}

#[test]
fn drawings_are_listed() {
    let chart = Chart::demo();
    let all = chart.drawings_list(None).expect("all");
    let ids: Vec<_> = all.drawings.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["d1", "d2", "d3"]);
    let main = chart.drawings_list(Some("main")).expect("main");
    assert_eq!(main.drawings.len(), 2);
    assert_eq!(json(&main)["drawings"][0]["style"]["line_style"], "dashed");
    let error = chart.drawings_list(Some("top")).expect_err("x");
    assert_eq!(error.code(), "PANE_NOT_FOUND");
}

#[test]
fn drawings_are_created() {
    let mut chart = Chart::demo();
    let style = StyleChange {
        color: Some("#ff9800".into()),
        ..Default::default()
    };
    let drawing = chart
        .drawing_create(
            "main",
            DrawingKind::HorizontalLine,
            vec![anchor(JAN_2, 182.5)],
            Some(style),
            None,
        )
        .expect("created");
    assert_eq!(drawing.id, "d4");
    assert_eq!(
        drawing.style,
        Style {
            color: "#ff9800".into(),
            width: 2,
            line_style: LineStyle::Solid
        }
    );
    let line = chart
        .drawing_create(
            "main",
            DrawingKind::TrendLine,
            vec![anchor(JAN_2, 180.0), anchor(LAST_DAY + 86_399, 200.0)],
            None,
            None,
        )
        .expect("the last bar's whole day is inside");
    assert_eq!(line.id, "d5");
    let label = chart
        .drawing_create(
            "lower",
            DrawingKind::Text,
            vec![anchor(JAN_2, 50.0)],
            None,
            Some("Mid".into()),
        )
        .expect("text");
    assert_eq!(label.text.as_deref(), Some("Mid"));
    assert_eq!(chart.drawings_list(None).expect("all").drawings.len(), 6);
}

#[test]
fn drawing_create_errors() {
    let mut chart = Chart::demo();
    let one = || vec![anchor(JAN_2, 182.5)];
    let error = chart
        .drawing_create("upper", DrawingKind::HorizontalLine, one(), None, None)
        .expect_err("");
    assert_eq!(error.code(), "PANE_NOT_FOUND");
    assert_eq!(
        error.detail(),
        "No pane `upper`. Valid pane IDs: main, lower."
    );
    let error = chart
        .drawing_create(
            "main",
            DrawingKind::HorizontalLine,
            vec![anchor(1_600_000_000, 1.0)],
            None,
            None,
        )
        .expect_err("2020");
    assert_eq!(error.code(), "DATE_OUT_OF_RANGE");
    assert_eq!(
        error.detail(),
        "The anchor time 2020-09-13 is outside the loaded range of the 1d bars of AAPL on pane \
         `main`: 2024-07-16 to 2025-06-30."
    );
    let error = chart
        .drawing_create(
            "main",
            DrawingKind::HorizontalLine,
            vec![anchor(LAST_DAY + 86_400, 1.0)],
            None,
            None,
        )
        .expect_err("after the last bar");
    assert_eq!(error.code(), "DATE_OUT_OF_RANGE");
    let error = chart
        .drawing_create("main", DrawingKind::TrendLine, one(), None, None)
        .expect_err("");
    assert_eq!(error.code(), "ANCHOR_COUNT_MISMATCH");
    assert_eq!(error.detail(), "A `trend_line` takes 2 anchors, 1 given.");
    let error = chart
        .drawing_create("main", DrawingKind::Text, one(), None, Some("  ".into()))
        .expect_err("");
    assert_eq!(error.code(), "TEXT_REQUIRED");
    assert_eq!(
        chart.drawings_list(None).expect("all").drawings.len(),
        3,
        "nothing was drawn"
    );
    let drawing = chart.drawing_create(
        "main",
        DrawingKind::Ray,
        vec![anchor(JAN_2, 1.0); 2],
        None,
        None,
    );
    assert_eq!(drawing.expect("IDs continue after failures").id, "d4");
}

#[test]
fn drawings_are_updated() {
    let mut chart = Chart::demo();
    let restyle = StyleChange {
        width: Some(4),
        ..Default::default()
    };
    let drawing = chart
        .drawing_update("d1", None, Some(restyle), None)
        .expect("restyled");
    assert_eq!(drawing.style.width, 4);
    assert_eq!(
        drawing.style.line_style,
        LineStyle::Dashed,
        "other style fields are kept"
    );
    let moved = chart
        .drawing_update(
            "d1",
            Some(vec![anchor(JAN_2, 185.0)]),
            None,
            Some("Floor".into()),
        )
        .expect("moved");
    assert_eq!(moved.anchors, [anchor(JAN_2, 185.0)]);
    assert_eq!(moved.text.as_deref(), Some("Floor"));

    let error = chart
        .drawing_update("d9", None, None, Some("x".into()))
        .expect_err("");
    assert_eq!(error.code(), "DRAWING_NOT_FOUND");
    assert_eq!(
        error.detail(),
        "No drawing `d9`. Existing drawing IDs: d1, d2, d3."
    );
    let error = chart
        .drawing_update("d1", None, None, None)
        .expect_err("nothing");
    assert_eq!(error.code(), "NOTHING_TO_CHANGE");
    let error = chart
        .drawing_update("d2", Some(vec![anchor(JAN_2, 1.0)]), None, None)
        .expect_err("");
    assert_eq!(error.code(), "ANCHOR_COUNT_MISMATCH");
    let error = chart
        .drawing_update("d1", Some(vec![anchor(0, 1.0)]), None, None)
        .expect_err("");
    assert_eq!(error.code(), "DATE_OUT_OF_RANGE");
    assert_eq!(
        chart.drawings_list(None).expect("all").drawings[0].anchors,
        [anchor(JAN_2, 185.0)]
    );
}

#[test]
fn drawings_are_deleted() {
    let mut chart = Chart::demo();
    let deleted = chart.drawing_delete("d2").expect("deleted");
    assert_eq!(deleted.deleted.kind, DrawingKind::TrendLine);
    let error = chart.drawing_delete("d2").expect_err("gone");
    assert_eq!(error.code(), "DRAWING_NOT_FOUND");
    assert_eq!(
        error.detail(),
        "No drawing `d2`. Existing drawing IDs: d1, d3."
    );
    chart.drawings_clear(None).expect("cleared");
    let error = chart.drawing_delete("d1").expect_err("gone");
    assert_eq!(
        error.detail(),
        "No drawing `d1`. There are no drawings there."
    );
}

#[test]
fn drawings_are_copied() {
    let mut chart = Chart::demo();
    let copied = chart
        .drawings_copy("main", "lower", Some(&["d2".to_owned()]))
        .expect("copied");
    assert_eq!(copied.copied.len(), 1);
    assert_eq!(
        (
            copied.copied[0].id.as_str(),
            copied.copied[0].pane_id.as_str()
        ),
        ("d4", "lower")
    );
    let all = chart.drawings_copy("main", "lower", None).expect("all");
    let ids: Vec<_> = all.copied.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["d5", "d6"]);

    let error = chart.drawings_copy("main", "main", None).expect_err("same");
    assert_eq!(error.code(), "SAME_PANE");
    assert_eq!(
        error.detail(),
        "`main` is both the source and the target pane. Other panes: lower."
    );
    let error = chart
        .drawings_copy("main", "side", None)
        .expect_err("no pane");
    assert_eq!(error.code(), "PANE_NOT_FOUND");
    let error = chart
        .drawings_copy("main", "lower", Some(&["d3".to_owned()]))
        .expect_err("");
    assert_eq!(error.code(), "DRAWING_NOT_FOUND");
    assert_eq!(
        error.detail(),
        "No drawing `d3` on pane `main`. Existing drawing IDs: d1, d2."
    );
    chart
        .pane_create(PaneKind::Price, None, Some(Interval::M1), &[])
        .expect("p1");
    let error = chart
        .drawings_copy("main", "p1", None)
        .expect_err("daily anchors");
    assert_eq!(error.code(), "DATE_OUT_OF_RANGE");
    assert!(
        chart
            .drawings_list(Some("p1"))
            .expect("p1")
            .drawings
            .is_empty(),
        "all or nothing"
    );
}

#[test]
fn drawings_are_cleared() {
    let mut chart = Chart::demo();
    let cleared = chart.drawings_clear(Some("main")).expect("cleared");
    assert_eq!(cleared.removed, ["d1", "d2"]);
    assert_eq!(chart.drawings_list(None).expect("rest").drawings.len(), 1);
    let cleared = chart.drawings_clear(None).expect("cleared");
    assert_eq!(cleared.removed, ["d3"]);
    let error = chart.drawings_clear(Some("nowhere")).expect_err("x");
    assert_eq!(error.code(), "PANE_NOT_FOUND");
}

#[test]
fn comparisons_are_listed_created_and_cleared() {
    let mut chart = Chart::demo();
    let list = chart.comparisons_list(None).expect("list");
    assert_eq!(list.comparisons.len(), 1);
    assert_eq!(
        (
            list.comparisons[0].symbol.as_str(),
            list.comparisons[0].base_symbol.as_str()
        ),
        ("MSFT", "AAPL")
    );
    let error = chart.comparisons_list(Some("x")).expect_err("x");
    assert_eq!(error.code(), "PANE_NOT_FOUND");

    let created = chart.comparison_create("btcusd", None).expect("created");
    assert_eq!(
        (
            created.id.as_str(),
            created.symbol.as_str(),
            created.pane_id.as_str()
        ),
        ("c2", "BTCUSD", "main")
    );
    let expected = {
        let bars = chart
            .market_bars_query("BTCUSD", Interval::D1, None, None, Some(1000))
            .expect("b");
        let (first, last) = (bars.bars[0].close, bars.bars[bars.bars.len() - 1].close);
        ((last - first) / first * 100.0 * 100.0).round() / 100.0
    };
    assert_eq!(created.change_percent, expected);
    let error = chart
        .comparison_create("MSFT", Some("main"))
        .expect_err("exists");
    assert_eq!(error.code(), "COMPARISON_EXISTS");
    assert_eq!(
        error.detail(),
        "MSFT is already compared on pane `main` (comparison `c1`)."
    );
    let error = chart.comparison_create("AAPL", None).expect_err("itself");
    assert_eq!(error.detail(), "AAPL is the symbol of pane `main` itself.");
    let error = chart.comparison_create("GOLD", None).expect_err("unknown");
    assert_eq!(error.code(), "INSTRUMENT_NOT_FOUND");
    let error = chart
        .comparison_create("NVDA", Some("side"))
        .expect_err("no pane");
    assert_eq!(error.code(), "PANE_NOT_FOUND");

    chart.comparison_create("NVDA", Some("lower")).expect("c3");
    assert_eq!(
        chart
            .comparisons_list(Some("lower"))
            .expect("lower")
            .comparisons
            .len(),
        1
    );
    let cleared = chart.comparisons_clear(Some("main")).expect("cleared");
    assert_eq!(cleared.removed, ["c1", "c2"]);
    let cleared = chart.comparisons_clear(None).expect("cleared");
    assert_eq!(cleared.removed, ["c3"]);
    let error = chart.comparisons_clear(Some("x")).expect_err("x");
    assert_eq!(error.code(), "PANE_NOT_FOUND");
}

#[test]
fn settings_are_read() {
    let chart = Chart::demo();
    let all = chart.settings_get(&[]);
    assert_eq!(all.settings.len(), SettingKey::ALL.len());
    let some = chart.settings_get(&[SettingKey::Timezone, SettingKey::Theme, SettingKey::Theme]);
    let keys: Vec<_> = some.settings.iter().map(|s| s.key).collect();
    assert_eq!(
        keys,
        [SettingKey::Theme, SettingKey::Timezone],
        "key order, once each"
    );
    assert_eq!(
        json(&chart.settings_get(&[SettingKey::RightMarginBars]))["settings"][0]["value"],
        serde_json::json!(10)
    );
    let provider = &chart.settings_get(&[SettingKey::DataProvider]).settings[0];
    assert!(provider.read_only);
}

#[test]
fn settings_are_updated() {
    let mut chart = Chart::demo();
    let changed = chart
        .settings_update(SettingKey::Theme, "light".into())
        .expect("light");
    assert_eq!(
        (changed.previous, changed.value),
        ("dark".into(), "light".into())
    );
    chart
        .settings_update(SettingKey::ShowGrid, false.into())
        .expect("bool");
    chart
        .settings_update(SettingKey::CandleUpColor, "#00FF00".into())
        .expect("color");
    let json_value = SettingValue::from_json(&serde_json::json!(25.0)).expect("a number");
    let changed = chart
        .settings_update(SettingKey::RightMarginBars, json_value)
        .expect("whole");
    assert_eq!(changed.value, SettingValue::Integer(25));
    assert_eq!(SettingValue::from_json(&serde_json::json!(null)), None);

    let error = chart
        .settings_update(SettingKey::DataProvider, "live".into())
        .expect_err("ro");
    assert_eq!(error.code(), "SETTING_READ_ONLY");
    assert_eq!(
        error.detail(),
        "`data_provider` is read-only. Writable settings: theme, timezone, price_scale, \
         show_volume, show_grid, candle_up_color, candle_down_color, right_margin_bars."
    );
    let error = chart
        .settings_update(SettingKey::Theme, "blue".into())
        .expect_err("invalid");
    assert_eq!(error.code(), "SETTING_VALUE_INVALID");
    assert_eq!(
        error.detail(),
        "`theme` expects one of \"dark\", \"light\"."
    );
    for (key, value) in [
        (SettingKey::ShowVolume, SettingValue::from("yes")),
        (SettingKey::CandleDownColor, SettingValue::from("red")),
        (SettingKey::RightMarginBars, SettingValue::from(2.5)),
        (SettingKey::RightMarginBars, SettingValue::from(51)),
        (SettingKey::Timezone, SettingValue::from(true)),
    ] {
        let error = chart
            .settings_update(key, value.clone())
            .expect_err("invalid");
        assert_eq!(error.code(), "SETTING_VALUE_INVALID", "{key} = {value:?}");
    }
    let theme = &chart.settings_get(&[SettingKey::Theme]).settings[0];
    assert_eq!(theme.value, "light".into(), "failed updates change nothing");
}

#[test]
fn settings_are_reset() {
    let mut chart = Chart::demo();
    chart
        .settings_update(SettingKey::Theme, "light".into())
        .expect("light");
    chart
        .settings_update(SettingKey::ShowGrid, false.into())
        .expect("grid");
    let reset = chart.settings_reset(&[SettingKey::Theme]).expect("reset");
    assert_eq!(reset.settings[0].value, "dark".into());
    assert_eq!(
        chart.settings_get(&[SettingKey::ShowGrid]).settings[0].value,
        false.into()
    );
    let reset = chart.settings_reset(&[]).expect("all writable");
    assert_eq!(reset.settings.len(), SettingKey::writable().len());
    assert_eq!(
        chart.settings_get(&[SettingKey::ShowGrid]).settings[0].value,
        true.into()
    );
    let error = chart
        .settings_reset(&[SettingKey::Theme, SettingKey::AppVersion])
        .expect_err("ro");
    assert_eq!(error.code(), "SETTING_READ_ONLY");
}

#[test]
fn web_search_ranks_by_terms() {
    let chart = Chart::demo();
    let found = chart
        .web_search("RSI overbought level", None)
        .expect("found");
    assert_eq!(found.terms, ["level", "overbought", "rsi"]);
    assert_eq!(
        found.results[0].url,
        "https://learn.chart.example/indicators/rsi"
    );
    assert!(found.results.windows(2).all(|w| w[0].score >= w[1].score));
    let limited = chart.web_search("moving average", Some(1)).expect("found");
    assert_eq!(limited.results.len(), 1);
    assert!(
        chart
            .web_search("quantum gravity", None)
            .expect("nothing")
            .results
            .is_empty()
    );
    let error = chart.web_search("the ... of", None).expect_err("no words");
    assert_eq!(error.code(), "SEARCH_QUERY_EMPTY");
}

#[test]
fn ask_user_goes_through_the_host() {
    let chart = Chart::demo();
    let error = chart
        .ask_user("Which timeframe?", &[])
        .expect_err("no host");
    assert_eq!(error.code(), "USER_UNAVAILABLE");

    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let chart = chart.with_ask_user(move |question, options| {
        log.lock()
            .expect("not poisoned")
            .push((question.to_owned(), options.to_vec()));
        options
            .last()
            .cloned()
            .unwrap_or_else(|| "daily".to_owned())
    });
    let options = ["1d".to_owned(), "1h".to_owned()];
    let answer = chart
        .ask_user("Which timeframe?", &options)
        .expect("answered");
    assert_eq!(
        (answer.answer.as_str(), answer.chose_option),
        ("1h", Some(true))
    );
    let answer = chart.ask_user("Anything else?", &[]).expect("answered");
    assert_eq!(
        (answer.answer.as_str(), answer.chose_option),
        ("daily", None)
    );
    assert_eq!(asked.lock().expect("not poisoned").len(), 2);
}

#[test]
fn every_error_has_a_declared_code() {
    let chart = Chart::demo();
    let errors = [
        chart.indicators_query("x", None, None).expect_err("e"),
        chart.market_timeshare_query("x").expect_err("e"),
        chart
            .market_bars_query("AAPL", Interval::D1, Some(0), Some(1), None)
            .expect_err("e"),
        chart
            .market_bars_query("AAPL", Interval::D1, Some(1), Some(0), None)
            .expect_err("e"),
        ChartError::DrawingNotFound {
            drawing_id: "d9".into(),
            pane_id: None,
            valid: vec![],
        },
        chart
            .indicators_query("main", Some(IndicatorName::Atr), None)
            .expect_err("e"),
        Indicator::new(
            IndicatorName::Sma,
            IndicatorParams {
                period: Some(0),
                ..Default::default()
            },
        )
        .expect_err("e"),
        ChartError::AnchorCountMismatch {
            kind: DrawingKind::Ray,
            expected: 2,
            found: 3,
        },
        ChartError::TextRequired {
            kind: DrawingKind::Text,
        },
        ChartError::SamePane {
            pane_id: "main".into(),
            others: vec![],
        },
        ChartError::ComparisonExists {
            pane_id: "main".into(),
            symbol: "MSFT".into(),
            comparison_id: None,
        },
        ChartError::PaneLimitReached { limit: 6 },
        ChartError::NothingToChange {
            fields: &["a", "b"],
        },
        ChartError::SettingReadOnly {
            key: SettingKey::AppVersion,
            writable: vec![],
        },
        ChartError::SettingValueInvalid {
            key: SettingKey::Theme,
            expected: "x".into(),
        },
        ChartError::SearchQueryEmpty,
        ChartError::UserUnavailable,
    ];
    let mut codes: Vec<&str> = errors.iter().map(ChartError::code).collect();
    codes.sort_unstable();
    assert_eq!(codes, ChartError::CODES);
    for error in &errors {
        let detail = error.detail();
        assert!(detail.ends_with('.'), "{detail}");
        assert!(
            detail.chars().next().is_some_and(|c| !c.is_lowercase()),
            "{detail}"
        );
    }
    let error = ChartError::SamePane {
        pane_id: "main".into(),
        others: vec![],
    };
    assert_eq!(
        error.detail(),
        "`main` is both the source and the target pane. There is no other pane; create one with \
         pane_create."
    );
}

#[test]
fn long_ids_are_not_echoed_whole() {
    let chart = Chart::demo();
    let long = "p".repeat(1000);
    let error = chart.drawings_list(Some(&long)).expect_err("no pane");
    assert!(error.detail().len() < 120, "{}", error.detail());
}

#[test]
fn vocabularies_parse_their_one_spelling() {
    assert_eq!("1h".parse::<Interval>(), Ok(Interval::H1));
    assert_eq!(
        "fibonacci_retracement".parse::<DrawingKind>(),
        Ok(DrawingKind::FibonacciRetracement)
    );
    let error = "2h".parse::<Interval>().expect_err("unknown");
    assert_eq!(
        error.to_string(),
        "unknown interval `2h`, expected one of `1m`, `5m`, `15m`, `30m`, `1h`, `1d`, `1w`"
    );
    let kind: DrawingKind = serde_json::from_str("\"trend_line\"").expect("a kind");
    assert_eq!(kind, DrawingKind::TrendLine);
    assert!(serde_json::from_str::<SettingKey>("\"colour\"").is_err());
    for key in SettingKey::ALL {
        assert_eq!(key.as_str().parse::<SettingKey>(), Ok(*key));
    }
}

/// One `[[examples]]` entry of a tool manifest (its `input` line, verbatim) and the same call
/// made on the chart; `None` for tools that are not part of the chart.
type ManifestExample = (&'static str, &'static str, Option<fn(&mut Chart)>);

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

const MANIFEST_EXAMPLES: &[ManifestExample] = &[
    (
        "ask_user",
        r#"{ question = "Which timeframe should I analyse?", options = ["1d", "1h"] }"#,
        Some(|chart| {
            chart.set_ask_user(|_, options| options.first().cloned().unwrap_or_default());
            let answer = chart
                .ask_user("Which timeframe should I analyse?", &strings(&["1d", "1h"]))
                .expect("ask_user");
            assert_eq!(answer.answer, "1d");
        }),
    ),
    (
        "code_interpreter",
        r#"{ language = "python", code = "print(6 * 7)" }"#,
        None,
    ),
    (
        "comparison_create",
        r#"{ symbol = "BTCUSD" }"#,
        Some(|chart| {
            chart
                .comparison_create("BTCUSD", None)
                .expect("comparison_create");
        }),
    ),
    (
        "comparisons_clear",
        "{}",
        Some(|chart| {
            assert_eq!(
                chart
                    .comparisons_clear(None)
                    .expect("comparisons_clear")
                    .removed,
                ["c1"]
            );
        }),
    ),
    (
        "comparisons_list",
        "{}",
        Some(|chart| {
            chart.comparisons_list(None).expect("comparisons_list");
        }),
    ),
    (
        "drawing_create",
        r##"{ pane_id = "main", kind = "horizontal_line", anchors = [{ time = 1735776000, price = 182.5 }], style = { color = "#26a69a", line_style = "dashed" }, text = "Support" }"##,
        Some(|chart| {
            let style = StyleChange {
                color: Some("#26a69a".into()),
                line_style: Some(LineStyle::Dashed),
                ..Default::default()
            };
            chart
                .drawing_create(
                    "main",
                    DrawingKind::HorizontalLine,
                    vec![anchor(1_735_776_000, 182.5)],
                    Some(style),
                    Some("Support".into()),
                )
                .expect("drawing_create");
        }),
    ),
    (
        "drawing_create",
        r#"{ pane_id = "main", kind = "trend_line", anchors = [{ time = 1738281600, price = 138.29 }, { time = 1750032000, price = 182.61 }] }"#,
        Some(|chart| {
            chart
                .drawing_create(
                    "main",
                    DrawingKind::TrendLine,
                    vec![anchor(1_738_281_600, 138.29), anchor(1_750_032_000, 182.61)],
                    None,
                    None,
                )
                .expect("drawing_create");
        }),
    ),
    (
        "drawing_delete",
        r#"{ drawing_id = "d2" }"#,
        Some(|chart| {
            chart.drawing_delete("d2").expect("drawing_delete");
        }),
    ),
    (
        "drawing_update",
        r##"{ drawing_id = "d1", style = { color = "#ff9800", line_style = "solid" } }"##,
        Some(|chart| {
            let style = StyleChange {
                color: Some("#ff9800".into()),
                line_style: Some(LineStyle::Solid),
                ..Default::default()
            };
            chart
                .drawing_update("d1", None, Some(style), None)
                .expect("drawing_update");
        }),
    ),
    (
        "drawing_update",
        r#"{ drawing_id = "d1", anchors = [{ time = 1750032000, price = 185.0 }] }"#,
        Some(|chart| {
            chart
                .drawing_update("d1", Some(vec![anchor(1_750_032_000, 185.0)]), None, None)
                .expect("drawing_update");
        }),
    ),
    (
        "drawings_clear",
        r#"{ pane_id = "main" }"#,
        Some(|chart| {
            chart.drawings_clear(Some("main")).expect("drawings_clear");
        }),
    ),
    (
        "drawings_copy",
        r#"{ from_pane_id = "main", to_pane_id = "lower", drawing_ids = ["d2"] }"#,
        Some(|chart| {
            chart
                .drawings_copy("main", "lower", Some(&strings(&["d2"])))
                .expect("drawings_copy");
        }),
    ),
    (
        "drawings_list",
        r#"{ pane_id = "main" }"#,
        Some(|chart| {
            chart.drawings_list(Some("main")).expect("drawings_list");
        }),
    ),
    (
        "drawings_list",
        "{}",
        Some(|chart| {
            chart.drawings_list(None).expect("drawings_list");
        }),
    ),
    (
        "indicators_query",
        r#"{ pane_id = "lower", name = "rsi", limit = 5 }"#,
        Some(|chart| {
            let query = chart.indicators_query("lower", Some(IndicatorName::Rsi), Some(5));
            assert_eq!(
                query.expect("indicators_query").indicators[0].points.len(),
                5
            );
        }),
    ),
    (
        "indicators_query",
        r#"{ pane_id = "main" }"#,
        Some(|chart| {
            chart
                .indicators_query("main", None, None)
                .expect("indicators_query");
        }),
    ),
    (
        "instruments_query_name",
        r#"{ query = "apple" }"#,
        Some(|chart| {
            let found = chart.instruments_query_name("apple", None);
            assert_eq!(found.instruments[0].symbol, "AAPL");
        }),
    ),
    (
        "market_bars_query",
        r#"{ symbol = "AAPL", interval = "1d", limit = 5 }"#,
        Some(|chart| {
            let bars = chart.market_bars_query("AAPL", Interval::D1, None, None, Some(5));
            assert_eq!(bars.expect("market_bars_query").bars.len(), 5);
        }),
    ),
    (
        "market_bars_query",
        r#"{ symbol = "AAPL", interval = "1d", from = 1735689600, to = 1736207999 }"#,
        Some(|chart| {
            let from_to = (Some(1_735_689_600), Some(1_736_207_999));
            let bars = chart.market_bars_query("AAPL", Interval::D1, from_to.0, from_to.1, None);
            assert_eq!(bars.expect("market_bars_query").matched, 4);
        }),
    ),
    (
        "market_timeshare_query",
        r#"{ symbol = "AAPL" }"#,
        Some(|chart| {
            chart
                .market_timeshare_query("AAPL")
                .expect("market_timeshare_query");
        }),
    ),
    (
        "market_timeshare_range_query",
        r#"{ symbol = "AAPL", from = 1751290200, to = 1751293799 }"#,
        Some(|chart| {
            let hour = chart.market_timeshare_range_query("AAPL", 1_751_290_200, 1_751_293_799);
            assert_eq!(hour.expect("market_timeshare_range_query").points.len(), 60);
        }),
    ),
    (
        "pane_create",
        r#"{ kind = "indicator", indicators = [{ name = "macd" }] }"#,
        Some(|chart| {
            let macd = IndicatorRequest::new(IndicatorName::Macd);
            chart
                .pane_create(PaneKind::Indicator, None, None, &[macd])
                .expect("pane_create");
        }),
    ),
    (
        "pane_create",
        r#"{ kind = "price", symbol = "MSFT", interval = "1h", indicators = [{ name = "ema", period = 50 }] }"#,
        Some(|chart| {
            let ema = IndicatorRequest::with_params(
                IndicatorName::Ema,
                IndicatorParams {
                    period: Some(50),
                    ..Default::default()
                },
            );
            chart
                .pane_create(PaneKind::Price, Some("MSFT"), Some(Interval::H1), &[ema])
                .expect("pane_create");
        }),
    ),
    (
        "pane_replace_content",
        r#"{ pane_id = "main", symbol = "NVDA" }"#,
        Some(|chart| {
            chart
                .pane_replace_content("main", Some("NVDA"), None, None)
                .expect("replaced");
        }),
    ),
    (
        "pane_replace_content",
        r#"{ pane_id = "lower", indicators = [{ name = "rsi", period = 21 }, { name = "atr" }] }"#,
        Some(|chart| {
            let rsi = IndicatorRequest::with_params(
                IndicatorName::Rsi,
                IndicatorParams {
                    period: Some(21),
                    ..Default::default()
                },
            );
            let atr = IndicatorRequest::new(IndicatorName::Atr);
            let pane = chart.pane_replace_content("lower", None, None, Some(&[rsi, atr]));
            assert_eq!(pane.expect("replaced").indicators.len(), 2);
        }),
    ),
    (
        "panes_clear",
        "{}",
        Some(|chart| {
            assert_eq!(
                chart.panes_clear().expect("panes_clear").removed_panes,
                ["lower"]
            );
        }),
    ),
    (
        "panes_list",
        "{}",
        Some(|chart| {
            assert_eq!(chart.panes_list().expect("panes_list").panes.len(), 2);
        }),
    ),
    (
        "settings_get",
        r#"{ keys = ["theme", "timezone"] }"#,
        Some(|chart| {
            let settings = chart.settings_get(&[SettingKey::Theme, SettingKey::Timezone]);
            assert_eq!(settings.settings.len(), 2);
        }),
    ),
    (
        "settings_get",
        "{}",
        Some(|chart| {
            assert_eq!(
                chart.settings_get(&[]).settings.len(),
                SettingKey::ALL.len()
            );
        }),
    ),
    (
        "settings_reset",
        r#"{ keys = ["theme"] }"#,
        Some(|chart| {
            chart
                .settings_reset(&[SettingKey::Theme])
                .expect("settings_reset");
        }),
    ),
    (
        "settings_reset",
        "{}",
        Some(|chart| {
            chart.settings_reset(&[]).expect("settings_reset");
        }),
    ),
    (
        "settings_update",
        r#"{ key = "theme", value = "light" }"#,
        Some(|chart| {
            chart
                .settings_update(SettingKey::Theme, "light".into())
                .expect("settings_update");
        }),
    ),
    (
        "settings_update",
        r#"{ key = "show_grid", value = false }"#,
        Some(|chart| {
            chart
                .settings_update(SettingKey::ShowGrid, false.into())
                .expect("settings_update");
        }),
    ),
    (
        "web_search",
        r#"{ query = "RSI overbought level" }"#,
        Some(|chart| {
            let found = chart
                .web_search("RSI overbought level", None)
                .expect("web_search");
            assert!(!found.results.is_empty());
        }),
    ),
];

/// Every `input = ...` line of `tools/*.toml`, with the tool's file stem, sorted.
fn manifest_example_lines() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools");
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the tools directory") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 name")
            .to_owned();
        let text = std::fs::read_to_string(&path).expect("a readable manifest");
        for line in text.lines() {
            if let Some(input) = line.strip_prefix("input = ") {
                lines.push((stem.clone(), input.to_owned()));
            }
        }
    }
    lines.sort();
    lines
}

/// The examples of the manifests are exactly those of [`MANIFEST_EXAMPLES`]: a changed example
/// must be changed in both places.
#[test]
fn the_manifest_examples_are_all_mirrored_here() {
    let mut mirrored: Vec<(String, String)> = MANIFEST_EXAMPLES
        .iter()
        .map(|(tool, input, _)| ((*tool).to_owned(), (*input).to_owned()))
        .collect();
    mirrored.sort();
    assert_eq!(manifest_example_lines(), mirrored);
}

/// Every manifest example succeeds on a fresh demo chart.
#[test]
fn the_manifest_examples_run_on_a_fresh_chart() {
    for (_, _, call) in MANIFEST_EXAMPLES {
        if let Some(call) = call {
            call(&mut Chart::demo());
        }
    }
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    fn any_interval() -> impl Strategy<Value = Interval> {
        proptest::sample::select(Interval::ALL)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the times and limits, queries answer or fail with a declared code.
        #[test]
        fn market_queries_never_panic(
            symbol in "[A-Za-z]{0,8}",
            interval in any_interval(),
            from in proptest::option::of(any::<i64>()),
            to in proptest::option::of(any::<i64>()),
            limit in proptest::option::of(any::<i64>()),
        ) {
            let chart = Chart::demo();
            match chart.market_bars_query(&symbol, interval, from, to, limit) {
                Ok(query) => {
                    prop_assert!(query.bars.len() <= 1000);
                    prop_assert!(query.bars.len() <= query.matched);
                }
                Err(error) => prop_assert!(ChartError::CODES.contains(&error.code())),
            }
            let (from, to) = (from.unwrap_or(0), to.unwrap_or(i64::MAX));
            if let Err(error) = chart.market_timeshare_range_query(&symbol, from, to) {
                prop_assert!(ChartError::CODES.contains(&error.code()));
            }
            let _ = chart.instruments_query_name(&symbol, limit);
        }

        /// Drawings with arbitrary anchors are either drawn inside the loaded range or refused.
        #[test]
        fn drawings_stay_inside_the_loaded_bars(
            time in any::<i64>(),
            price in -1e9f64..1e9,
            kind in proptest::sample::select(DrawingKind::ALL),
            count in 0usize..4,
            pane in proptest::sample::select(&["main", "lower", "other", ""][..]),
        ) {
            let mut chart = Chart::demo();
            let anchors = vec![anchor(time, price); count];
            let text = Some("label".to_owned());
            match chart.drawing_create(pane, kind, anchors, None, text) {
                Ok(drawing) => {
                    let view = chart.panes_list().expect("panes");
                    let range = &view.panes.iter().find(|p| p.id == drawing.pane_id).expect("pane").loaded;
                    prop_assert!(time >= range.first_time && time < range.last_time + 86_400);
                }
                Err(error) => prop_assert!(ChartError::CODES.contains(&error.code())),
            }
        }

        /// Any search text is answered, or refused as having no words.
        #[test]
        fn web_search_never_panics(query in "\\PC{0,60}", limit in proptest::option::of(any::<i64>())) {
            let chart = Chart::demo();
            match chart.web_search(&query, limit) {
                Ok(found) => prop_assert!(found.results.len() <= 10),
                Err(error) => prop_assert_eq!(error.code(), "SEARCH_QUERY_EMPTY"),
            }
        }

        /// Indicator parameters are accepted only within their bounds.
        #[test]
        fn indicator_parameters_are_bounded(
            name in proptest::sample::select(IndicatorName::ALL),
            period in proptest::option::of(any::<i64>()),
            std_dev in proptest::option::of(-10.0f64..10.0),
        ) {
            let params = IndicatorParams { period, std_dev, ..Default::default() };
            if let Ok(indicator) = Indicator::new(name, params) {
                let period = indicator.params.period.unwrap_or(2);
                prop_assert!((2..=200).contains(&period));
                let mut chart = Chart::demo();
                let request = IndicatorRequest::with_params(name, params);
                chart.pane_replace_content("lower", None, None, Some(&[request])).expect("valid");
                chart.indicators_query("lower", Some(name), None).expect("computed");
            }
        }
    }
}
