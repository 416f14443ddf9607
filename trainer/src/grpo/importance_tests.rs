//! Each kind against NeMo-RL's formulas (`ClippedPGLossFn.__call__`, the truncated
//! importance-sampling block) on synthetic log-probs, expected values by hand.

use super::*;

fn t(values: &[f64]) -> Tensor {
    Tensor::from_slice(values)
}

fn values(t: &Tensor) -> Vec<f64> {
    Vec::try_from(t.to_kind(Kind::Double).flatten(0, -1)).expect("values")
}

/// Sampler log-probs that put the token ratios `r` under train log-probs of −1.
fn with_ratios(r: &[f64]) -> (Tensor, Tensor) {
    let train = Tensor::full([r.len() as i64], -1.0, (Kind::Double, tch::Device::Cpu));
    let sampler: Vec<f64> = r.iter().map(|r| -1.0 - r.ln()).collect();
    (train, t(&sampler))
}

fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}");
    }
}

fn parse(text: &str) -> Result<ImportanceCorrection, String> {
    #[derive(Deserialize)]
    struct Stage {
        importance_correction: ImportanceCorrection,
    }
    toml::from_str::<Stage>(text)
        .map(|s| s.importance_correction)
        .map_err(|e| e.to_string())
}

/// `tis`: `clamp(r, min, max)`, `min` 0 by default; the clamped tokens are the
/// out-of-bounds ones (`r > max | r < min`).
#[test]
fn tis_clamps_the_ratio_into_its_bounds() {
    let (train, sampler) = with_ratios(&[1.0, 3.0, 0.4, 2.0]);
    let tis = ImportanceCorrection::Tis { min: 0.0, max: 2.0 };
    let w = tis.token_weights(&train, &sampler, None).expect("on");
    assert_close(&values(&w), &[1.0, 2.0, 0.4, 2.0]);
    let tis = ImportanceCorrection::Tis { min: 0.5, max: 2.0 };
    let w = tis.token_weights(&train, &sampler, None).expect("on");
    assert_close(&values(&w), &[1.0, 2.0, 0.5, 2.0]);
    let mut figures = MismatchFigures::default();
    let mask = t(&[1.0, 1.0, 1.0, 1.0]);
    figures.add(&tis, &train, &sampler, Some(&w), &mask);
    // 3 > 2 and 0.4 < 0.5 are out; 2 is on the bound, inside.
    assert_eq!(figures.out_of_bounds_share(), 0.5);
    assert_eq!(figures.masked_share(), 0.0);
    assert!((figures.weight_mean() - 5.5 / 4.0).abs() < 1e-12);
}

/// `icepop`: `r` inside `[min, max]` (bounds included), else 0.
#[test]
fn icepop_zeroes_tokens_outside_its_bounds() {
    let (train, sampler) = with_ratios(&[1.0, 6.0, 0.4, 4.9, 0.5]);
    let icepop = ImportanceCorrection::Icepop {
        min: ICEPOP_MIN,
        max: ICEPOP_MAX,
    };
    let w = icepop.token_weights(&train, &sampler, None).expect("on");
    assert_close(&values(&w), &[1.0, 0.0, 0.0, 4.9, 0.5]);
    let mut figures = MismatchFigures::default();
    // The last token is padding: not counted.
    let mask = t(&[1.0, 1.0, 1.0, 1.0, 0.0]);
    figures.add(&icepop, &train, &sampler, Some(&w), &mask);
    assert_eq!(figures.tokens, 4.0);
    assert_eq!(figures.masked_share(), 0.5);
    assert_eq!(figures.out_of_bounds_share(), 0.5);
}

/// `seq-mask-tis`: per row the geometric mean of `r` over its tokens; a row outside
/// `[0.999, 1.002]` is masked whole, the other keeps its raw (unclamped) ratios.
#[test]
fn seq_mask_tis_masks_whole_sequences_by_their_geometric_mean() {
    // Row 0: log r = 0.5, −0.499, 0.002 (mean 0.001, geo 1.0010005: kept), and a
    // padding column with log r = 3 left out of the mean.
    // Row 1: log r = 0.01, 0, 0 (mean 0.00333, geo 1.00334 > 1.002: masked).
    let log_r = [0.5, -0.499, 0.002, 3.0, 0.01, 0.0, 0.0, 0.0];
    let train = t(&[-1.0; 8]).view([2, 4]);
    let sampler = t(&log_r.map(|l| -1.0 - l)).view([2, 4]);
    let mask = t(&[1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0]).view([2, 4]);
    let seq = ImportanceCorrection::SeqMaskTis {
        min: SEQ_MASK_MIN,
        max: SEQ_MASK_MAX,
    };
    let keep = seq.sequence_keep(&train, &sampler, &mask).expect("seq");
    assert_eq!(
        Vec::<bool>::try_from(&keep).expect("keep"),
        vec![true, false]
    );
    let w = seq
        .token_weights(&train, &sampler, Some(&keep))
        .expect("on");
    let raw = |l: f64| l.exp();
    assert_close(
        &values(&w),
        &[
            raw(0.5),
            raw(-0.499),
            raw(0.002),
            raw(3.0),
            0.0,
            0.0,
            0.0,
            0.0,
        ],
    );
    assert!(values(&w)[0] > 1.6, "kept tokens are not truncated");
    let mut figures = MismatchFigures::default();
    figures.add(&seq, &train, &sampler, Some(&w), &mask);
    figures.add_sequences(&keep, &t(&[1.0, 1.0]));
    assert_eq!(figures.masked_sequence_share(), 0.5);
    assert_eq!(figures.masked_share(), 0.5, "row 1's three tokens of six");
    // The other kinds have no sequence verdict.
    let icepop = ImportanceCorrection::CASCADE_MOPD;
    assert!(icepop.sequence_keep(&train, &sampler, &mask).is_none());
}

/// A row with no token has mean 0 (NeMo-RL's `+ 1e-8`), geo 1: kept, not NaN.
#[test]
fn an_empty_sequence_is_kept_not_nan() {
    let seq = ImportanceCorrection::SeqMaskTis {
        min: SEQ_MASK_MIN,
        max: SEQ_MASK_MAX,
    };
    let z = t(&[0.0, 0.0]).view([1, 2]);
    let keep = seq.sequence_keep(&z, &t(&[5.0, 5.0]).view([1, 2]), &z);
    assert_eq!(
        Vec::<bool>::try_from(keep.expect("seq")).expect("v"),
        [true]
    );
}

/// An overflowing ratio counts 0 (NeMo-RL's `nan_to_num`), so it is masked, not NaN.
#[test]
fn non_finite_ratios_count_zero() {
    let train = t(&[-1.0, -1.0]);
    let sampler = t(&[f64::NEG_INFINITY, f64::NAN]);
    for kind in [
        ImportanceCorrection::Tis { min: 0.0, max: 2.0 },
        ImportanceCorrection::CASCADE_MOPD,
    ] {
        let w = kind.token_weights(&train, &sampler, None).expect("on");
        assert_eq!(values(&w), [0.0, 0.0], "{kind:?}");
    }
}

/// The weights are detached: no gradient flows through them.
#[test]
fn weights_are_detached() {
    let train = t(&[-1.0, -2.0]).set_requires_grad(true);
    let sampler = t(&[-1.1, -2.0]);
    for kind in [
        ImportanceCorrection::Tis { min: 0.0, max: 2.0 },
        ImportanceCorrection::CASCADE_MOPD,
        ImportanceCorrection::SeqMaskTis { min: 0.0, max: 9.0 },
    ] {
        let w = kind.token_weights(&train, &sampler, None).expect("on");
        assert!(!w.requires_grad(), "{kind:?}");
    }
    assert!(ImportanceCorrection::Off
        .token_weights(&train, &sampler, None)
        .is_none());
}

/// The mismatch is k3 KL(π_sampler ‖ π_θ): `e^δ − 1 − δ`, `δ = log π_θ − log π_sampler`.
#[test]
fn the_mismatch_is_the_k3_sampler_kl() {
    // δ = 0.1 and −0.2: (e^0.1 − 1.1 + e^−0.2 − 0.8) / 2.
    let train = t(&[-1.0, -1.0, -1.0]);
    let sampler = t(&[-1.1, -0.8, -7.0]);
    let mut figures = MismatchFigures::default();
    let off = ImportanceCorrection::Off;
    figures.add(&off, &train, &sampler, None, &t(&[1.0, 1.0, 0.0]));
    let want = (0.1f64.exp() - 1.1 + (-0.2f64).exp() - 0.8) / 2.0;
    assert!((figures.kl_mean() - want).abs() < 1e-12, "{figures:?}");
    assert_eq!(figures.weight_mean(), 0.0, "no weights when off");
}

#[test]
fn the_key_parses_each_kind_with_its_defaults() {
    let kind = |k: &str| parse(&format!("importance_correction = {{ kind = \"{k}\" }}"));
    assert_eq!(kind("off"), Ok(ImportanceCorrection::Off));
    assert_eq!(
        kind("tis"),
        Ok(ImportanceCorrection::Tis { min: 0.0, max: 2.0 })
    );
    assert_eq!(
        kind("icepop"),
        Ok(ImportanceCorrection::Icepop { min: 0.5, max: 5.0 })
    );
    assert_eq!(
        kind("seq-mask-tis"),
        Ok(ImportanceCorrection::SeqMaskTis {
            min: 0.999,
            max: 1.002
        })
    );
    assert_eq!(
        parse("importance_correction = { kind = \"icepop\", max = 2.0 }"),
        Ok(ImportanceCorrection::CASCADE_MOPD)
    );
}

#[test]
fn bad_kinds_keys_and_bounds_are_named() {
    let err = parse("importance_correction = { kind = \"tiss\" }").expect_err("kind");
    assert!(err.contains("unknown variant `tiss`"), "{err}");
    let err = parse("importance_correction = { kind = \"tis\", maxx = 3.0 }").expect_err("key");
    assert!(err.contains("unknown field `maxx`"), "{err}");
    let err = parse("importance_correction = { max = 3.0 }").expect_err("no kind");
    assert!(err.contains("kind"), "{err}");
    let bad = |c: ImportanceCorrection| c.check().expect_err("bad").key;
    assert_eq!(bad(ImportanceCorrection::Tis { min: 0.0, max: 0.0 }), "max");
    assert_eq!(
        bad(ImportanceCorrection::Icepop { min: 3.0, max: 2.0 }),
        "min"
    );
    assert_eq!(
        bad(ImportanceCorrection::SeqMaskTis {
            min: -1.0,
            max: 2.0
        }),
        "min"
    );
    assert_eq!(ImportanceCorrection::CASCADE_MOPD.check(), Ok(()));
}
