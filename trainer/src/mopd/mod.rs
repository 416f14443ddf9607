//! Multi-domain on-policy distillation (MOPD, Nemotron-Cascade 2 Eqs. 2–4): the
//! student samples, each prompt's teacher (chosen by domain) scores the sampled
//! tokens, and the student moves towards the teacher on exactly those tokens. No
//! reward is needed.
//!
//! ## Memory model
//! Only one model besides the student is ever resident during a step. Teachers are
//! held as checkpoint paths; for each domain in the batch its teacher is loaded (or
//! taken from the cache when `keep_teachers_loaded` is on and it fits), evaluated on
//! that domain's rows in micro-batches under `no_grad`, and — when not kept — dropped
//! before the next teacher loads. Peak memory is therefore the student (weights,
//! gradients, AdamW moments) plus one teacher's weights plus one micro-batch's
//! activations, whatever the number of teachers; keeping teachers loaded trades
//! memory (one copy per distinct teacher) for not re-reading checkpoints each step.

pub mod loss;
pub mod step;
pub mod teachers;
pub mod tempered;

pub use loss::{mopd_advantage, mopd_loss, truncated_weights, WeightGate};
pub use teachers::{select_teachers, TeacherChoice, TeacherError};
