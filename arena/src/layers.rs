//! The layering inside the arena crate, pinned by scanning its sources:
//! the store never names the service or the web pages, `verify` and the
//! metrics never import the store, and no store file outside
//! `store/backend/` speaks for one backend.

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    fn sources_under(folder: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut folders = vec![folder.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|ext| ext == "rs") {
                    found.push(path);
                }
            }
        }
        found.sort();
        found
    }

    fn src() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
    }

    /// Every (file, word) where a file under `files` contains a word of
    /// `words`.
    fn mentions(files: &[PathBuf], words: &[&str]) -> Vec<String> {
        let mut found = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(file).unwrap();
            for word in words {
                if text.contains(word) {
                    found.push(format!("{} names {word}", file.display()));
                }
            }
        }
        found
    }

    #[test]
    fn the_store_never_names_the_service_or_the_web_pages() {
        let store = sources_under(&src().join("store"));
        assert!(store.len() > 20, "the store's files are found");
        let found = mentions(&store, &["crate::service", "crate::web", "super::service"]);
        assert!(found.is_empty(), "{found:#?}");
    }

    #[test]
    fn verify_never_imports_the_store() {
        let mut verify = sources_under(&src().join("verify"));
        verify.push(src().join("verify.rs"));
        verify.push(src().join("report.rs"));
        let found = mentions(&verify, &["crate::store", "super::store"]);
        assert!(found.is_empty(), "{found:#?}");
    }

    #[test]
    fn the_metrics_never_import_the_store_the_service_or_the_web_pages() {
        let mut metrics = sources_under(&src().join("metrics"));
        metrics.push(src().join("metrics.rs"));
        let words = [
            "crate::store",
            "crate::service",
            "crate::web",
            "super::store",
        ];
        let found = mentions(&metrics, &words);
        assert!(found.is_empty(), "{found:#?}");
    }

    #[test]
    fn only_the_backend_folder_speaks_for_one_backend() {
        let store = src().join("store");
        let backend = store.join("backend");
        let others: Vec<PathBuf> = sources_under(&store)
            .into_iter()
            .filter(|file| !file.starts_with(&backend))
            // Tests may pick a backend to run on.
            .filter(|file| !file.to_string_lossy().contains("tests"))
            .collect();
        let words = [
            "Backend::Sqlite",
            "Backend::Postgres",
            "Open::Sqlite",
            "Open::Postgres",
            "Location::Sqlite",
            "Location::Postgres",
            "pg_",
            "BEGIN IMMEDIATE",
            "json_group_array",
            "json_agg",
            "FOR UPDATE",
            "Dialect",
        ];
        let found = mentions(&others, &words);
        assert!(found.is_empty(), "{found:#?}");
    }
}
