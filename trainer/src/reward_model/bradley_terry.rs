//! Bradley–Terry reward-model training: the loss `−log σ(r_chosen − r_rejected)`,
//! averaged over a batch of preference pairs, and pairwise accuracy (how often the
//! chosen response scores higher; a tie counts half).

use tch::{Kind, Tensor};

use super::pairs::TokenPair;
use super::{score_all, sequence_scores};
use crate::model::Transformer;
use crate::optim::AdamW;

/// What one Bradley–Terry step did (figures before the update).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BtStats {
    pub loss: f64,
    /// The batch's pairwise accuracy.
    pub accuracy: f64,
    /// Mean `r_chosen − r_rejected`.
    pub margin: f64,
    pub grad_norm: f64,
    pub pairs: usize,
}

/// The mean Bradley–Terry loss of scores `chosen` and `rejected` (`[B]` each).
pub fn bradley_terry_loss(chosen: &Tensor, rejected: &Tensor) -> Tensor {
    -(chosen - rejected).log_sigmoid().mean(Kind::Float)
}

/// One AdamW step on the Bradley–Terry loss of `pairs` (chosen and rejected scored
/// in one pass), the gradient clipped to `max_grad_norm`.
pub fn bt_step(
    model: &Transformer,
    optimizer: &mut AdamW,
    pairs: &[&TokenPair],
    lr: f64,
    max_grad_norm: f64,
) -> BtStats {
    let mut sequences: Vec<Vec<i64>> = pairs.iter().map(|p| p.chosen.clone()).collect();
    sequences.extend(pairs.iter().map(|p| p.rejected.clone()));
    optimizer.zero_grad();
    let scores = sequence_scores(model, &sequences);
    let n = pairs.len() as i64;
    let (chosen, rejected) = (scores.narrow(0, 0, n), scores.narrow(0, n, n));
    let loss = bradley_terry_loss(&chosen, &rejected);
    loss.backward();
    let margins = Vec::<f64>::try_from((&chosen - &rejected).detach().to_kind(Kind::Double))
        .unwrap_or_default();
    let grad_norm = optimizer.clip_grad_norm(max_grad_norm);
    optimizer.step(lr);
    BtStats {
        loss: f64::try_from(&loss).unwrap_or(f64::NAN),
        accuracy: accuracy_of(&margins),
        margin: margins.iter().sum::<f64>() / margins.len().max(1) as f64,
        grad_norm,
        pairs: pairs.len(),
    }
}

/// The share of `pairs` whose chosen response scores higher (ties count half),
/// scored `batch` sequences per pass without gradients; 0 for no pairs.
pub fn pairwise_accuracy(model: &Transformer, pairs: &[TokenPair], batch: usize) -> f64 {
    let chosen: Vec<Vec<i64>> = pairs.iter().map(|p| p.chosen.clone()).collect();
    let rejected: Vec<Vec<i64>> = pairs.iter().map(|p| p.rejected.clone()).collect();
    let (c, r) = (
        score_all(model, &chosen, batch),
        score_all(model, &rejected, batch),
    );
    let margins: Vec<f64> = c.iter().zip(&r).map(|(a, b)| a - b).collect();
    accuracy_of(&margins)
}

fn accuracy_of(margins: &[f64]) -> f64 {
    if margins.is_empty() {
        return 0.0;
    }
    let wins: f64 = margins
        .iter()
        .map(|&m| match m.partial_cmp(&0.0) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Equal) => 0.5,
            _ => 0.0,
        })
        .sum();
    wins / margins.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loss_is_minus_log_sigmoid_of_the_margin() {
        crate::numerics::pin_for_tests();
        let chosen = Tensor::from_slice(&[2.0f32, 0.0]);
        let rejected = Tensor::from_slice(&[0.0f32, 0.0]);
        let loss = f64::try_from(bradley_terry_loss(&chosen, &rejected)).unwrap();
        let want = (-(1.0 / (1.0 + (-2.0f64).exp())).ln() + 2f64.ln()) / 2.0;
        assert!((loss - want).abs() < 1e-6, "{loss} vs {want}");
        assert_eq!(accuracy_of(&[1.0, 0.0, -1.0, 2.0]), 0.625);
        assert_eq!(accuracy_of(&[]), 0.0);
    }
}
