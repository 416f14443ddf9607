//! A workplace's initial state from a folder of CSVs in NeMo Gym's layout, so that
//! users holding Gym's data reproduce Gym's rewards: `emails.csv`,
//! `calendar_events.csv`, `analytics_data.csv`, `project_tasks.csv` and
//! `customer_relationship_manager_data.csv` (each with a header line), found in the
//! folder or its `processed/` subfolder, and `email_addresses.csv` (one address a line,
//! no header; the company directory) in the folder or its `raw/` subfolder. Gym's own
//! `csv_data/` folder is such a folder.

use std::path::{Path, PathBuf};

use cascade_verifiers::workplace::table::parse_csv;
use cascade_verifiers::workplace::{Databases, Table, TableError, Workplace};
use thiserror::Error;

/// The largest CSV file read.
const MAX_FILE_BYTES: u64 = 64 << 20;

#[derive(Debug, Error)]
pub enum LoadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is larger than {MAX_FILE_BYTES} bytes")]
    TooLarge { path: PathBuf },
    #[error("no {name} in {dir} or its {sub}/ folder")]
    Missing {
        name: &'static str,
        dir: PathBuf,
        sub: &'static str,
    },
    #[error(transparent)]
    Table(#[from] TableError),
}

fn locate(dir: &Path, sub: &'static str, name: &'static str) -> Option<PathBuf> {
    [dir.join(sub).join(name), dir.join(name)]
        .into_iter()
        .find(|p| p.is_file())
}

fn read(path: &Path) -> Result<String, LoadError> {
    let io = |source| LoadError::Io {
        path: path.to_owned(),
        source,
    };
    if std::fs::metadata(path).map_err(io)?.len() > MAX_FILE_BYTES {
        return Err(LoadError::TooLarge {
            path: path.to_owned(),
        });
    }
    std::fs::read_to_string(path).map_err(io)
}

fn table(dir: &Path, name: &'static str) -> Result<Table, LoadError> {
    let path = locate(dir, "processed", name).ok_or_else(|| LoadError::Missing {
        name,
        dir: dir.to_owned(),
        sub: "processed",
    })?;
    Ok(Table::from_csv(name, &read(&path)?)?)
}

/// The workplace stored in `dir`.
pub fn workplace(dir: &Path) -> Result<Workplace, LoadError> {
    let name = "email_addresses.csv";
    let path = locate(dir, "raw", name).ok_or_else(|| LoadError::Missing {
        name,
        dir: dir.to_owned(),
        sub: "raw",
    })?;
    let directory = parse_csv(name, &read(&path)?)?
        .into_iter()
        .filter_map(|record| record.into_iter().next())
        .filter(|address| !address.is_empty())
        .collect();
    let db = Databases {
        emails: table(dir, "emails.csv")?,
        calendar: table(dir, "calendar_events.csv")?,
        analytics: table(dir, "analytics_data.csv")?,
        tasks: table(dir, "project_tasks.csv")?,
        customers: table(dir, "customer_relationship_manager_data.csv")?,
        directory,
    };
    Ok(Workplace::new(db)?)
}
