//! Dataset rows for training and evaluation: JSONL files of environment rows, turned
//! into prompt token ids through the environment's `prompt` and the chat template.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cascade_datasets::jsonl::Numbered;
use cascade_datasets::rows::RowSource;
use cascade_envs::{guard, guard_group, EnvConfig, Environment, Registry, Sample};
use cascade_verifiers::FieldError;
use serde_json::{Map, Value};

use super::RunError;
use crate::recipe::{Recipe, RowSelector};
use crate::tokenizer::TextTokenizer;

/// One environment with its rows, their rendered prompts and the domain they count for.
pub struct EnvData {
    pub domain: String,
    pub env: Arc<dyn Environment>,
    pub rows: Vec<Sample>,
    /// Each row's 1-based line in its dataset file (for errors).
    pub lines: Vec<usize>,
    pub prompts: Vec<Vec<i64>>,
    pub weight: f64,
    /// SFT stages: each row's reference response as token ids, end-of-turn appended;
    /// empty otherwise.
    pub targets: Vec<Vec<i64>>,
    /// The run's `enable_thinking`, for rendering tool results as the prompts were.
    pub enable_thinking: Option<bool>,
}

impl EnvData {
    /// Scores `response` for row `i`: the row plus `"response"`, through the guarded
    /// scoring path, so a panicking or misbehaving environment costs this sample (the
    /// fault printed) and never the step. `None` for a sample that could not be scored
    /// (`Reward::failed`: a scorer panic or limit, a plugin crash, no judge), which
    /// GRPO leaves out of its advantages and loss, and evaluation out of its mean,
    /// rather than count as a 0.
    pub fn reward(&self, i: usize, response: &str) -> Option<f64> {
        let sample = self.rows[i].with_field("response", Value::String(response.to_owned()));
        let guarded = guard(self.env.as_ref(), &sample);
        if let Some(fault) = &guarded.fault {
            // A bug in the environment, unlike a sample's own errors: show it.
            eprintln!(
                "[{}] row {i}: environment fault {fault:?}; not scored",
                self.domain
            );
        }
        (!guarded.reward.is_failed()).then_some(guarded.reward.score)
    }

    /// Scores `responses`, all answers to row `i`, together: an environment whose
    /// reward compares a group's responses (`Environment::group`, e.g. `genrm`).
    /// Guarded as [`EnvData::reward`]; `None` for environments that score alone. A
    /// response that could not be scored (every judge call failed) is
    /// [`crate::grpo::UNSCORED`].
    pub fn score_group(&self, i: usize, responses: &[String]) -> Option<Vec<f64>> {
        let group = self.env.group()?;
        let samples: Vec<Sample> = responses
            .iter()
            .map(|response| self.rows[i].with_field("response", Value::String(response.clone())))
            .collect();
        let guarded = guard_group(group, &samples);
        if let Some(fault) = guarded.iter().find_map(|g| g.fault.as_ref()) {
            eprintln!(
                "[{}] row {i}: environment fault {fault:?} on its group; reward 0",
                self.domain
            );
        }
        // A judge that failed costs comparisons, not the step: say so once a group.
        if let Some(error) = guarded
            .iter()
            .find_map(|g| g.reward.details.get("judge_error").and_then(Value::as_str))
        {
            eprintln!("[{}] row {i}: judge: {error}", self.domain);
        }
        Some(
            guarded
                .into_iter()
                .map(|g| {
                    if g.reward.is_failed() {
                        crate::grpo::UNSCORED
                    } else {
                        g.reward.score
                    }
                })
                .collect(),
        )
    }
}

/// Reads `path` (JSONL, parquet, or a dataset folder's `train` split) with the shared
/// row source, keeping at most `limit` rows (rows after the limit are not read), each
/// with its line (its row, for parquet); errors name the file and line.
pub fn read_rows(path: &Path, limit: Option<usize>) -> Result<Vec<Numbered<Sample>>, RunError> {
    let rows = RowSource::open(path, None)?
        .rows()
        .take(limit.unwrap_or(usize::MAX))
        .map(|row| {
            row.map(|r| Numbered {
                line: r.line,
                value: Sample::at_line(r.value, r.line),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if rows.is_empty() {
        return Err(RunError::Dataset {
            path: path.to_owned(),
            line: 0,
            message: "no rows".into(),
        });
    }
    Ok(rows)
}

fn table_to_json(table: &toml::Table) -> Map<String, Value> {
    match serde_json::to_value(table) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Builds the environment `name` with its recipe table; relative paths inside rows
/// resolve against the dataset's folder.
pub fn make_env(
    registry: &Registry,
    name: &str,
    config: &toml::Table,
    dataset: &Path,
) -> Result<Arc<dyn Environment>, RunError> {
    let mut cfg = EnvConfig::new(table_to_json(config));
    if let Some(dir) = dataset.parent() {
        cfg = cfg.with_base_dir(dir);
    }
    let env = registry.create(name, &cfg).map_err(|e| RunError::Env {
        name: name.to_owned(),
        message: e.to_string(),
    })?;
    Ok(Arc::from(env))
}

/// Where an environment's rows come from and what they count for: a stage env, a
/// routed env (`select`: the rows of a mixed dataset it takes) or an eval set.
pub struct EnvSource<'a> {
    pub name: &'a str,
    pub domain: &'a str,
    pub config: &'a toml::Table,
    pub dataset: &'a Path,
    /// Use only the first rows (eval sets).
    pub limit: Option<usize>,
    pub weight: f64,
    pub select: Option<&'a RowSelector>,
    /// `dataset`'s rows when already read: a route's envs share one read of its file.
    pub rows: Option<&'a [Numbered<Sample>]>,
}

impl<'a> EnvSource<'a> {
    /// A whole dataset, weight 1, for `name` counting as `domain`.
    pub fn file(
        name: &'a str,
        domain: &'a str,
        config: &'a toml::Table,
        dataset: &'a Path,
    ) -> Self {
        EnvSource {
            name,
            domain,
            config,
            dataset,
            limit: None,
            weight: 1.0,
            select: None,
            rows: None,
        }
    }
}

/// Loads an environment's rows and renders each prompt to token ids.
pub fn load_env_data(
    registry: &Registry,
    tokenizer: &TextTokenizer,
    enable_thinking: Option<bool>,
    source: &EnvSource,
) -> Result<EnvData, RunError> {
    let dataset = source.dataset;
    let env = make_env(registry, source.name, source.config, dataset)?;
    let all = match source.rows {
        Some(rows) => rows.to_vec(),
        None => read_rows(dataset, source.limit)?,
    };
    let total = all.len();
    let (lines, rows): (Vec<usize>, Vec<Sample>) = select_rows(all, source.select, dataset)?
        .into_iter()
        .map(|r| (r.line, r.value))
        .unzip();
    let mut prompts = Vec::with_capacity(rows.len());
    for (row, &line) in rows.iter().zip(&lines) {
        let messages = env.prompt(row).map_err(|e| RunError::Dataset {
            path: dataset.to_path_buf(),
            line,
            message: e.to_string(),
        })?;
        let text = tokenizer.render_prompt(&messages, row_tools(row), enable_thinking)?;
        prompts.push(tokenizer.encode(&text)?);
    }
    // A routed env's share of its route is its share of the file's rows.
    let share = rows.len() as f64 / total as f64;
    Ok(EnvData {
        domain: source.domain.to_owned(),
        env,
        rows,
        lines,
        prompts,
        weight: source.weight * share,
        targets: Vec::new(),
        enable_thinking,
    })
}

/// The rows `select` takes (all without one). A row that no env of the route takes is
/// an error with its line.
fn select_rows(
    rows: Vec<Numbered<Sample>>,
    select: Option<&RowSelector>,
    dataset: &Path,
) -> Result<Vec<Numbered<Sample>>, RunError> {
    let Some(select) = select else {
        return Ok(rows);
    };
    let mut taken = Vec::new();
    for row in rows {
        let takes = select
            .takes(row.value.value())
            .map_err(|message| RunError::Dataset {
                path: dataset.to_path_buf(),
                line: row.line,
                message,
            })?;
        if takes {
            taken.push(row);
        }
    }
    Ok(taken)
}

/// A row's function tools, for the chat template: NeMo Gym's
/// `responses_create_params.tools`, else a top-level `tools` list (BFCL-style rows).
fn row_tools(row: &Sample) -> Option<&[Value]> {
    row.get("responses_create_params")
        .and_then(|p| p.get("tools"))
        .and_then(Value::as_array)
        .or_else(|| row.get("tools").and_then(Value::as_array))
        .map(Vec::as_slice)
}

/// Every eval set's data (in [`Recipe::eval_sets`] order), and each running stage's
/// environments' data (SFT stages: with their reference responses).
pub fn load_run_data(
    recipe: &Recipe,
    registry: &Registry,
    tokenizer: &TextTokenizer,
) -> Result<(Vec<EnvData>, Vec<Vec<EnvData>>), RunError> {
    let thinking = recipe.run.enable_thinking;
    let mut evals = Vec::new();
    for (_, e) in recipe.eval_sets() {
        let dataset = recipe.resolve(&e.dataset);
        let source = EnvSource {
            limit: e.limit,
            ..EnvSource::file(e.env_name(), &e.domain, &e.config, &dataset)
        };
        evals.push(load_env_data(registry, tokenizer, thinking, &source)?);
    }
    let mut stages = Vec::new();
    // Each routed file is read once, whatever the number of envs its route maps to.
    let mut routed_rows: HashMap<PathBuf, Vec<Numbered<Sample>>> = HashMap::new();
    for s in recipe.active_stages() {
        let mut envs = Vec::new();
        for e in &s.common().envs {
            let dataset = recipe.resolve(&e.dataset);
            if e.select.is_some() && !routed_rows.contains_key(&dataset) {
                routed_rows.insert(dataset.clone(), read_rows(&dataset, None)?);
            }
            let source = EnvSource {
                weight: e.weight,
                select: e.select.as_ref(),
                rows: e
                    .select
                    .as_ref()
                    .and(routed_rows.get(&dataset).map(Vec::as_slice)),
                ..EnvSource::file(&e.name, e.domain(), &e.config, &dataset)
            };
            let mut env_data = load_env_data(registry, tokenizer, thinking, &source)?;
            if let (Some(select), true) = (&e.select, env_data.rows.is_empty()) {
                // One map may serve several files: a value this file lacks is no error.
                eprintln!(
                    "[{}] {}.map.{}: no row of {} carries it; nothing to route there",
                    s.name(),
                    select.route,
                    select.value,
                    dataset.display()
                );
                continue;
            }
            if let Some(field) = &e.target {
                load_targets(&mut env_data, tokenizer, field, &dataset)?;
            }
            envs.push(env_data);
        }
        stages.push(envs);
    }
    Ok((evals, stages))
}

/// Reads each row's reference response from field `field` and encodes it, followed by
/// the tokenizer's end-of-turn token, for supervised training. The field holds a string,
/// or a list of exactly one string (Gym's `expected_answer` lists, as long-context rows
/// carry them).
pub fn load_targets(
    data: &mut EnvData,
    tokenizer: &TextTokenizer,
    field: &str,
    dataset: &Path,
) -> Result<(), RunError> {
    let end = tokenizer.stop_ids.first().copied();
    let mut targets = Vec::with_capacity(data.rows.len());
    for (row, &line) in data.rows.iter().zip(&data.lines) {
        let text = reference_text(row, field).map_err(|e| RunError::Dataset {
            path: dataset.to_path_buf(),
            line,
            message: format!("SFT target: {e}"),
        })?;
        let mut ids = tokenizer.encode(text)?;
        ids.extend(end);
        targets.push(ids);
    }
    data.targets = targets;
    Ok(())
}

/// A string field, or a one-element list of strings.
fn reference_text<'a>(row: &'a Sample, field: &str) -> Result<&'a str, FieldError> {
    if let Some(list @ Value::Array(items)) = row.get(field) {
        return match items.as_slice() {
            [Value::String(text)] => Ok(text),
            _ => Err(FieldError::wrong_type(
                field,
                "a string or a list of one string",
                list,
            )),
        };
    }
    row.str_field(field)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use cascade_envs::{ChatMessage, Reward};

    /// Panics on the response "panic", returns NaN on "nan", else rewards "ok".
    pub(crate) struct Faulty;
    impl Environment for Faulty {
        fn name(&self) -> &str {
            "faulty"
        }
        fn prompt(&self, _: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
            Ok(vec![])
        }
        fn score(&self, sample: &Sample) -> Reward {
            match sample.response() {
                Ok("panic") => panic!("faulty environment"),
                Ok("nan") => Reward::new(f64::NAN),
                Ok(text) => Reward::pass_fail(text == "ok"),
                Err(e) => Reward::error(e.to_string()),
            }
        }
    }

    /// One row (`{"id": "r"}`, prompt `[1]`) of `domain`, scored by [`Faulty`].
    pub(crate) fn faulty_data(domain: &str) -> EnvData {
        EnvData {
            domain: domain.into(),
            env: Arc::new(Faulty),
            rows: vec![Sample::new(serde_json::json!({"id": "r"}))],
            lines: vec![1],
            prompts: vec![vec![1]],
            weight: 1.0,
            targets: Vec::new(),
            enable_thinking: None,
        }
    }

    #[test]
    fn a_faulty_environment_costs_one_sample_never_the_step() {
        let data = faulty_data("faulty");
        let responses = ["ok", "panic", "ok", "nan", "no"];
        let rewards: Vec<Option<f64>> = responses.iter().map(|r| data.reward(0, r)).collect();
        assert_eq!(rewards, [Some(1.0), None, Some(1.0), None, Some(0.0)]);
    }

    #[test]
    fn reads_rows_up_to_the_limit_and_names_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.jsonl");
        std::fs::write(&path, "{\"id\":\"a\"}\n\n{\"id\":\"b\"}\n{bad\n").unwrap();
        let ids = |rows: Vec<Numbered<Sample>>| {
            rows.iter()
                .map(|r| (r.line, r.value.id().unwrap().to_owned()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(read_rows(&path, Some(2)).unwrap()),
            [(1, "a".to_owned()), (3, "b".to_owned())]
        );
        let err = read_rows(&path, None).unwrap_err().to_string();
        assert!(err.contains("rows.jsonl:4: malformed JSON"), "{err}");
        std::fs::write(&path, "\n").unwrap();
        assert!(read_rows(&path, None)
            .unwrap_err()
            .to_string()
            .contains("no rows"));
    }

    #[test]
    fn a_bad_prompt_or_target_is_named_by_its_file_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.jsonl");
        // Line 4 (after a blank line) has no `problem`; then line 4 has no `solution`.
        std::fs::write(
            &path,
            "{\"id\":\"a\",\"problem\":\"1+1\",\"answer\":\"2\"}\n\n{\"id\":\"b\",\"problem\":\"2+2\",\"answer\":\"4\"}\n{\"id\":\"c\"}\n",
        )
        .unwrap();
        let registry = Registry::discover().unwrap();
        let chatml = crate::toy::assets_dir().with_file_name("tiny-chatml");
        let tokenizer = TextTokenizer::load(&chatml).unwrap();
        let table = toml::Table::new();
        let load = || {
            let source = EnvSource::file("math", "math", &table, &path);
            load_env_data(&registry, &tokenizer, None, &source)
        };
        let err = load().err().expect("row c has no problem").to_string();
        assert!(err.contains("rows.jsonl:4:"), "{err}");
        std::fs::write(
            &path,
            "{\"id\":\"a\",\"problem\":\"1+1\",\"solution\":\"2\"}\n\n\n{\"id\":\"b\",\"problem\":\"2+2\"}\n",
        )
        .unwrap();
        let mut data = load().expect("prompts render");
        assert_eq!(data.lines, [1, 4]);
        let err = load_targets(&mut data, &tokenizer, "solution", &path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("rows.jsonl:4: SFT target"), "{err}");
    }

    #[test]
    fn a_routed_env_reads_its_rows_with_their_lines_and_its_share_of_the_weight() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mixed.jsonl");
        let row = |agent: &str, n: u32| {
            format!("{{\"agent_ref\":{{\"name\":\"{agent}\"}},\"problem\":\"{n}+{n}\",\"answer\":\"{}\"}}\n", 2 * n)
        };
        let text = [row("a", 1), row("b", 2), row("a", 3), row("a", 4)].concat();
        std::fs::write(&path, text).unwrap();
        let registry = Registry::discover().unwrap();
        let chatml = crate::toy::assets_dir().with_file_name("tiny-chatml");
        let tokenizer = TextTokenizer::load(&chatml).unwrap();
        let recipe = crate::recipe::Recipe::parse(
            "[run]\nmodel = \"m\"\n[[stage]]\nname = \"s\"\nalgorithm = \"grpo\"\n[[stage.route]]\ndataset = \"mixed.jsonl\"\nweight = 2.0\n[stage.route.map]\na = \"math\"\nb = { env = \"math\", domain = \"other\" }\n",
            &dir.path().join("r.toml"),
        )
        .unwrap();
        let envs = &recipe.stages[0].common().envs;
        let load = |i: usize| {
            let e = &envs[i];
            let dataset = recipe.resolve(&e.dataset);
            let source = EnvSource {
                weight: e.weight,
                select: e.select.as_ref(),
                ..EnvSource::file(&e.name, e.domain(), &e.config, &dataset)
            };
            load_env_data(&registry, &tokenizer, None, &source).unwrap()
        };
        let (a, b) = (load(0), load(1));
        assert_eq!(
            (a.domain.as_str(), a.lines.clone(), a.weight),
            ("math", vec![1, 3, 4], 1.5)
        );
        assert_eq!(
            (b.domain.as_str(), b.lines.clone(), b.weight),
            ("other", vec![2], 0.5)
        );
    }

    #[test]
    fn a_target_is_a_string_or_a_list_of_one_string() {
        let row = |v: Value| Sample::new(serde_json::json!({ "expected_answer": v }));
        let one = row(serde_json::json!(["34"]));
        assert_eq!(reference_text(&one, "expected_answer").unwrap(), "34");
        let text = row(serde_json::json!("34"));
        assert_eq!(reference_text(&text, "expected_answer").unwrap(), "34");
        for bad in [
            serde_json::json!(["1", "2"]),
            serde_json::json!([]),
            serde_json::json!([3]),
        ] {
            let err = reference_text(&row(bad), "expected_answer").unwrap_err();
            assert!(err.to_string().contains("expected_answer"), "{err}");
        }
    }
}
