-- One row per running process (API instance or worker), refreshed every few
-- seconds with its counters over the last minute: the dashboard sums them.
CREATE TABLE instance_stats (
    instance       TEXT PRIMARY KEY,
    process        TEXT NOT NULL,
    version        TEXT NOT NULL DEFAULT '',
    started_at     TIMESTAMP NOT NULL,
    seen_at        TIMESTAMP NOT NULL,
    requests       BIGINT NOT NULL DEFAULT 0,
    errors         BIGINT NOT NULL DEFAULT 0,
    latency_sum_ms DOUBLE PRECISION NOT NULL DEFAULT 0,
    latency_max_ms DOUBLE PRECISION NOT NULL DEFAULT 0,
    memory_mb      DOUBLE PRECISION NOT NULL DEFAULT 0,
    log_dropped    BIGINT NOT NULL DEFAULT 0,
    sse_clients    BIGINT NOT NULL DEFAULT 0
);
