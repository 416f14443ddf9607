//! Reading and writing the Hugging Face weight layout: one `model.safetensors`, or
//! shards listed by `model.safetensors.index.json`. Writing is deterministic (tensors
//! sorted by name) and carries the `{"format": "pt"}` metadata transformers expects.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

use serde_json::{json, Map, Value};
use tch::{Device, Kind, Tensor};

use super::ModelError;

pub const SINGLE_FILE: &str = "model.safetensors";
pub const INDEX_FILE: &str = "model.safetensors.index.json";

/// Every tensor of the checkpoint in `dir`, by name, on the CPU in its stored dtype.
pub fn read_dir(dir: &Path) -> Result<BTreeMap<String, Tensor>, ModelError> {
    let index = dir.join(INDEX_FILE);
    let files: Vec<String> = if index.exists() {
        let text = std::fs::read_to_string(&index).map_err(|source| ModelError::Io {
            path: index.clone(),
            source,
        })?;
        let value: Value = serde_json::from_str(&text).map_err(|e| ModelError::Config {
            path: index.display().to_string(),
            message: e.to_string(),
        })?;
        let map = value
            .get("weight_map")
            .and_then(Value::as_object)
            .ok_or_else(|| ModelError::Config {
                path: index.display().to_string(),
                message: "no `weight_map` object".into(),
            })?;
        let unique: BTreeSet<String> = map
            .values()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        unique.into_iter().collect()
    } else if dir.join(SINGLE_FILE).exists() {
        vec![SINGLE_FILE.to_owned()]
    } else {
        return Err(ModelError::NoWeights(dir.to_owned()));
    };
    let mut tensors = BTreeMap::new();
    for file in files {
        let path = dir.join(&file);
        if !path.exists() {
            return Err(ModelError::NoWeights(path));
        }
        let read = Tensor::read_safetensors(&path).map_err(|e| ModelError::Torch {
            context: path.display().to_string(),
            message: e.to_string(),
        })?;
        tensors.extend(read);
    }
    Ok(tensors)
}

/// The tch kind for a transformers dtype name.
pub fn kind_from_name(name: &str) -> Kind {
    match name {
        "bfloat16" => Kind::BFloat16,
        "float16" => Kind::Half,
        _ => Kind::Float,
    }
}

fn dtype_code(kind: Kind) -> Result<(&'static str, usize), ModelError> {
    match kind {
        Kind::Float => Ok(("F32", 4)),
        Kind::BFloat16 => Ok(("BF16", 2)),
        Kind::Half => Ok(("F16", 2)),
        other => Err(ModelError::Torch {
            context: "saving".into(),
            message: format!("cannot save tensors of kind {other:?}"),
        }),
    }
}

/// Writes `tensors` (cast to `kind`) into `dir`: one file when they fit in
/// `max_shard_bytes`, else numbered shards plus the index, as transformers does.
pub fn write_dir(
    dir: &Path,
    tensors: &BTreeMap<String, Tensor>,
    kind: Kind,
    max_shard_bytes: usize,
) -> Result<(), ModelError> {
    let (_, width) = dtype_code(kind)?;
    let mut shards: Vec<Vec<&String>> = vec![Vec::new()];
    let mut current = 0usize;
    for (name, t) in tensors {
        let bytes = t.numel() * width;
        if current > 0 && current + bytes > max_shard_bytes {
            shards.push(Vec::new());
            current = 0;
        }
        current += bytes;
        if let Some(last) = shards.last_mut() {
            last.push(name);
        }
    }
    if shards.len() == 1 {
        return write_file(&dir.join(SINGLE_FILE), &shards[0], tensors, kind).map(|_| ());
    }
    let n = shards.len();
    let mut weight_map = Map::new();
    let mut total = 0usize;
    for (i, names) in shards.iter().enumerate() {
        let file = format!("model-{:05}-of-{n:05}.safetensors", i + 1);
        total += write_file(&dir.join(&file), names, tensors, kind)?;
        for name in names {
            weight_map.insert((*name).clone(), Value::String(file.clone()));
        }
    }
    let index = json!({"metadata": {"total_size": total}, "weight_map": weight_map});
    let text = serde_json::to_string_pretty(&index).unwrap_or_default();
    let path = dir.join(INDEX_FILE);
    std::fs::write(&path, text).map_err(|source| ModelError::Io { path, source })
}

/// Writes one safetensors file; returns the bytes of tensor data written.
fn write_file(
    path: &Path,
    names: &[&String],
    tensors: &BTreeMap<String, Tensor>,
    kind: Kind,
) -> Result<usize, ModelError> {
    let (code, width) = dtype_code(kind)?;
    let mut header = Map::new();
    header.insert("__metadata__".into(), json!({"format": "pt"}));
    let mut blobs = Vec::with_capacity(names.len());
    let mut offset = 0usize;
    for name in names {
        let t = &tensors[*name];
        let cpu = t.detach().to_device(Device::Cpu).to_kind(kind).contiguous();
        let len = cpu.numel() * width;
        let mut bytes = vec![0u8; len];
        cpu.f_copy_data_u8(&mut bytes, cpu.numel())
            .map_err(|e| ModelError::Torch {
                context: (*name).clone(),
                message: e.to_string(),
            })?;
        header.insert(
            (*name).clone(),
            json!({"dtype": code, "shape": cpu.size(), "data_offsets": [offset, offset + len]}),
        );
        offset += len;
        blobs.push(bytes);
    }
    let mut head = serde_json::to_vec(&Value::Object(header)).unwrap_or_default();
    // The header is padded with spaces to a multiple of 8 bytes, as the reference writer does.
    while head.len() & 7 != 0 {
        head.push(b' ');
    }
    let io = |source| ModelError::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    file.write_all(&(head.len() as u64).to_le_bytes())
        .map_err(io)?;
    file.write_all(&head).map_err(io)?;
    for blob in &blobs {
        file.write_all(blob).map_err(io)?;
    }
    file.flush().map_err(io)?;
    Ok(offset)
}
