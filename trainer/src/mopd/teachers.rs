//! Choosing each domain's teacher: the one the recipe names, else the earlier
//! checkpoint of this run (the base model included) with the best eval score in that
//! domain; ties go to the earliest, the checkpoint the others started from.

use std::collections::BTreeMap;

use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
pub enum TeacherError {
    #[error("MOPD stage `{stage}`: no earlier stage to take a teacher from for domain `{domain}` and none named in `teachers`")]
    NoEarlierCheckpoint { stage: String, domain: String },
    #[error("MOPD stage `{stage}`: teacher `{teacher}` for domain `{domain}` is not `base` or an earlier stage")]
    UnknownTeacher {
        stage: String,
        domain: String,
        teacher: String,
    },
    #[error("MOPD stage `{stage}`: no earlier eval score for domain `{domain}`; name its teacher in `teachers`")]
    NoScore { stage: String, domain: String },
}

/// The teacher of one domain and why.
#[derive(Debug, Clone, PartialEq)]
pub struct TeacherChoice {
    /// `base` or an earlier stage's name.
    pub stage: String,
    /// Its eval score in the domain, when chosen by score.
    pub score: Option<f64>,
}

/// `earlier`: the run's records so far in order (`base` first): stage name and its
/// per-domain scores. `named`: domain → stage from the recipe.
pub fn select_teachers(
    stage: &str,
    domains: &[String],
    earlier: &[(String, BTreeMap<String, f64>)],
    named: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, TeacherChoice>, TeacherError> {
    let mut out = BTreeMap::new();
    for domain in domains {
        if let Some(teacher) = named.get(domain) {
            if !earlier.iter().any(|(s, _)| s == teacher) {
                return Err(TeacherError::UnknownTeacher {
                    stage: stage.to_owned(),
                    domain: domain.clone(),
                    teacher: teacher.clone(),
                });
            }
            out.insert(
                domain.clone(),
                TeacherChoice {
                    stage: teacher.clone(),
                    score: None,
                },
            );
            continue;
        }
        if earlier.len() < 2 {
            return Err(TeacherError::NoEarlierCheckpoint {
                stage: stage.to_owned(),
                domain: domain.clone(),
            });
        }
        let mut best: Option<(&String, f64)> = None;
        for (name, scores) in earlier {
            if let Some(&score) = scores.get(domain) {
                if best.is_none_or(|(_, b)| score > b) {
                    best = Some((name, score));
                }
            }
        }
        let (name, score) = best.ok_or_else(|| TeacherError::NoScore {
            stage: stage.to_owned(),
            domain: domain.clone(),
        })?;
        out.insert(
            domain.clone(),
            TeacherChoice {
                stage: name.clone(),
                score: Some(score),
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn best_earlier_checkpoint_per_domain_or_named() {
        let earlier = vec![
            ("base".to_owned(), scores(&[("math", 0.5), ("ifeval", 0.2)])),
            (
                "if-rl".to_owned(),
                scores(&[("math", 0.4), ("ifeval", 0.6)]),
            ),
            (
                "multi".to_owned(),
                scores(&[("math", 0.5), ("ifeval", 0.5)]),
            ),
        ];
        let domains = vec!["math".to_owned(), "ifeval".to_owned()];
        let t = select_teachers("mopd", &domains, &earlier, &BTreeMap::new()).unwrap();
        assert_eq!(t["math"].stage, "base");
        assert_eq!(t["ifeval"].stage, "if-rl");
        let named = BTreeMap::from([("math".to_owned(), "multi".to_owned())]);
        assert_eq!(
            select_teachers("mopd", &domains, &earlier, &named).unwrap()["math"].stage,
            "multi"
        );
        let named = BTreeMap::from([("math".to_owned(), "later".to_owned())]);
        assert!(matches!(
            select_teachers("mopd", &domains, &earlier, &named),
            Err(TeacherError::UnknownTeacher { .. })
        ));
        let err = select_teachers("mopd", &domains, &earlier[..1], &BTreeMap::new()).unwrap_err();
        assert!(err.to_string().contains("no earlier stage"), "{err}");
    }
}
