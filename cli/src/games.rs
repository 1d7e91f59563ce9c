//! `cairn games`: every game the engine referees, from its descriptor (seats,
//! options, the action grammar with examples); and the one place the CLI
//! checks a game id and canonicalises `--opt` flags.

use std::process::ExitCode;

use anyhow::anyhow;
use cairn_engine::{GameDescriptor, GameOptions, GAMES};
use serde_json::{json, Value};

use crate::table::Table;

#[derive(Debug, clap::Args)]
pub struct GamesArgs {
    /// Show only this game.
    #[arg(value_name = "GAME", value_parser = game_id)]
    game: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: GamesArgs) -> anyhow::Result<ExitCode> {
    let shown: Vec<&GameDescriptor> = GAMES
        .iter()
        .map(|game| game.descriptor)
        .filter(|descriptor| args.game.as_deref().is_none_or(|id| id == descriptor.id))
        .collect();
    if args.json {
        let games: Vec<Value> = shown.iter().map(|descriptor| to_json(descriptor)).collect();
        outln!("{}", json!({ "games": games }));
    } else {
        let texts: Vec<String> = shown.iter().map(|descriptor| to_text(descriptor)).collect();
        out!("{}", texts.join("\n"));
    }
    Ok(ExitCode::SUCCESS)
}

/// clap's check of a `--game`: a game of the engine's table.
pub fn game_id(text: &str) -> Result<String, String> {
    cairn_engine::registry::known_game(text)
        .map(|descriptor| descriptor.id.to_string())
        .map_err(|error| error.to_string())
}

/// `--opt KEY=VALUE` flags for `game`, checked against its descriptor and
/// canonical (an option equal to its default left out), so every command
/// names a variant the same way.
pub fn options(game: &str, flags: &[String]) -> anyhow::Result<GameOptions> {
    let options = cairn_engine::game::parse_options(flags.iter().map(String::as_str))
        .map_err(anyhow::Error::msg)?;
    cairn_engine::canonical_options(game, &options).map_err(|error| anyhow!("{error}"))
}

fn to_text(descriptor: &GameDescriptor) -> String {
    let mut text = format!(
        "{} ({}), seats: {}\n",
        descriptor.id,
        descriptor.name,
        descriptor.seats_text()
    );
    if descriptor.options.is_empty() {
        text.push_str("options: none\n");
    } else {
        let mut table = Table::new(&["option", "type", "default", "meaning"]);
        for spec in descriptor.options {
            table.row(vec![
                format!("--opt {}=", spec.key),
                spec.kind.name(),
                spec.default.to_string(),
                spec.meaning.to_string(),
            ]);
        }
        text.push_str(&table.render());
    }
    let mut table = Table::new(&["action", "meaning", "examples"]);
    for form in descriptor.actions {
        table.row(vec![
            form.form.to_string(),
            form.meaning.to_string(),
            form.examples.join(", "),
        ]);
    }
    text.push_str(&table.render());
    text
}

fn to_json(descriptor: &GameDescriptor) -> Value {
    let (min, max) = descriptor.seat_bounds();
    let rules: Vec<Value> = descriptor
        .seats
        .iter()
        .map(|rule| {
            let when = rule
                .when
                .map(|(key, value)| json!({ "key": key, "value": value }));
            json!({ "when": when, "min": rule.min, "max": rule.max })
        })
        .collect();
    let options: Vec<Value> = descriptor
        .options
        .iter()
        .map(|spec| {
            json!({ "key": spec.key, "type": spec.kind.name(), "default": spec.default,
                    "meaning": spec.meaning })
        })
        .collect();
    let actions: Vec<Value> = descriptor
        .actions
        .iter()
        .map(
            |form| json!({ "form": form.form, "meaning": form.meaning, "examples": form.examples }),
        )
        .collect();
    json!({
        "id": descriptor.id,
        "name": descriptor.name,
        "seats": { "min": min, "max": max, "text": descriptor.seats_text(), "rules": rules },
        "options": options,
        "actions": actions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    #[test]
    fn a_misspelt_option_lists_the_known_ones() {
        let error = options("schotten-totten", &flags(&["tactic=true"])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown option `tactic` for schotten-totten; known: tactics, expert, rounds"
        );
    }

    #[test]
    fn options_are_refused_or_made_canonical() {
        let canonical = options("schotten-totten", &flags(&["tactics=false", "rounds=03"]));
        assert_eq!(
            canonical.unwrap(),
            GameOptions::from([("rounds".to_string(), "3".to_string())])
        );
        for bad in [
            &["tactics=maybe"][..],
            &["tactics="],
            &["tactics=true", "tactics=false"],
            &["solo=true"],
            &["=true"],
            &["tactics"],
        ] {
            assert!(options("schotten-totten", &flags(bad)).is_err(), "{bad:?}");
        }
        assert!(options("chess", &flags(&[])).is_err());
    }

    #[test]
    fn the_listing_names_every_option_and_action_form() {
        for game in GAMES {
            let text = to_text(game.descriptor);
            for spec in game.descriptor.options {
                assert!(text.contains(&format!("--opt {}=", spec.key)));
            }
            for form in game.descriptor.actions {
                assert!(text.contains(form.form), "{}", form.form);
            }
            let json = to_json(game.descriptor);
            assert_eq!(json["id"], game.descriptor.id);
            assert_eq!(
                json["actions"].as_array().unwrap().len(),
                game.descriptor.actions.len()
            );
        }
    }
}
