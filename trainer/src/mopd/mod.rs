//! Multi-domain on-policy distillation (MOPD, Nemotron-Cascade 2 Eqs. 2–4): the
//! student samples, each prompt's teacher (chosen by domain) scores the sampled
//! tokens, and the student moves towards the teacher on exactly those tokens. No
//! reward is needed.
//!
//! ## Memory model
//! Teachers are held as checkpoint paths; for each domain in the batch its teacher is
//! loaded (in the run's training precision) or taken from the pool, evaluated on
//! that domain's rows in micro-batches under `no_grad`. With `keep_teachers_loaded`
//! every teacher stays resident; otherwise the pool keeps, across steps, as many of
//! the most recently used as fit `teacher_cache_mib` (default: a quarter of the
//! available memory on the CPU, none on a GPU) and drops the rest after their pass.
//! With a budget of 0, peak memory is the student (weights, gradients, AdamW
//! moments) plus one teacher's weights plus one micro-batch's activations, whatever
//! the number of teachers.

pub mod loss;
pub mod pool;
pub mod step;
pub mod teachers;
pub mod tempered;

pub use loss::{mopd_advantage, mopd_loss, mopd_loss_weighted};
pub use teachers::{select_teachers, TeacherChoice, TeacherError};
