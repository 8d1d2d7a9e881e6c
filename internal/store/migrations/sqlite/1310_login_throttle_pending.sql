-- Sign-in attempts in flight are counted apart from failures:
-- with both in one counter, six correct sign-ins of one login from one
-- address at the same moment found the pair's five slots taken by the
-- others and got 429. An attempt now waits for a slot held by an attempt in
-- flight and is refused at once only for recorded failures.
ALTER TABLE login_throttle ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
