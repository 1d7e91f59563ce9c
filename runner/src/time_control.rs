//! Thinking time, charged in the bot's own CPU time: each decision may use
//! `per_decision`, anything above comes out of a per-game bank, and a bank
//! overdrawn forfeits the game. CPU is what a bot controls; wall time
//! depends on the machine's load. A wall-clock backstop still stops a bot
//! that waits (sleeps, blocks) without computing.

use std::time::Duration;

/// A match's time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    pub per_decision: Duration,
    /// Per bot per game.
    pub bank: Duration,
    /// CPU time to start and answer a hello (start-up of a fresh process
    /// included), as decisions are charged; not charged to the bank. A
    /// bot that waits is stopped by [`TimeControl::setup_wall_cap`].
    pub setup: Duration,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            per_decision: Duration::from_secs(1),
            bank: Duration::from_secs(10),
            setup: Duration::from_secs(10),
        }
    }
}

/// The wall backstop is this many times the CPU allowance, plus
/// [`WALL_GRACE`]: on a loaded machine (parallel matches on two cores) a bot
/// gets a fraction of a core, and it must not forfeit on wall time while it
/// computes within its CPU budget.
const WALL_FACTOR: u32 = 4;
const WALL_GRACE: Duration = Duration::from_secs(1);

/// The wall time after which a bot allowed `cpu` of CPU is stopped whatever
/// its CPU: host load never makes it forfeit, waiting does.
fn wall_cap(cpu: Duration) -> Duration {
    cpu.saturating_mul(WALL_FACTOR).saturating_add(WALL_GRACE)
}

impl TimeControl {
    /// The wall time a fresh bot has for its ready, whatever its CPU.
    pub fn setup_wall_cap(&self) -> Duration {
        wall_cap(self.setup)
    }
}

/// One bot's clock in one game.
#[derive(Debug, Clone)]
pub struct GameClock {
    per_decision: Duration,
    bank_left: Duration,
}

/// The bank did not cover a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overdrawn {
    pub used: Duration,
    pub allowed: Duration,
}

impl GameClock {
    pub fn new(control: &TimeControl) -> GameClock {
        GameClock {
            per_decision: control.per_decision,
            bank_left: control.bank,
        }
    }

    pub fn bank_left(&self) -> Duration {
        self.bank_left
    }

    /// The most CPU the next decision may use.
    pub fn allowance(&self) -> Duration {
        self.per_decision + self.bank_left
    }

    /// The wall time after which a decision is a timeout whatever its CPU.
    pub fn wall_backstop(&self) -> Duration {
        wall_cap(self.allowance())
    }

    /// Charges one decision's CPU time.
    pub fn charge(&mut self, used: Duration) -> Result<(), Overdrawn> {
        let allowed = self.allowance();
        if used > allowed {
            return Err(Overdrawn { used, allowed });
        }
        self.bank_left -= used.saturating_sub(self.per_decision);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn decisions_within_the_limit_leave_the_bank_untouched() {
        let mut clock = GameClock::new(&TimeControl {
            per_decision: ms(100),
            bank: ms(300),
            setup: ms(1),
        });
        clock.charge(ms(100)).unwrap();
        assert_eq!(clock.bank_left(), ms(300));
    }

    #[test]
    fn overruns_draw_on_the_bank_until_it_is_overdrawn() {
        let mut clock = GameClock::new(&TimeControl {
            per_decision: ms(100),
            bank: ms(300),
            setup: ms(1),
        });
        clock.charge(ms(250)).unwrap();
        assert_eq!(clock.bank_left(), ms(150));
        assert_eq!(clock.allowance(), ms(250));
        assert_eq!(clock.wall_backstop(), ms(2000));
        assert_eq!(
            clock.charge(ms(251)),
            Err(Overdrawn {
                used: ms(251),
                allowed: ms(250)
            })
        );
    }
}
