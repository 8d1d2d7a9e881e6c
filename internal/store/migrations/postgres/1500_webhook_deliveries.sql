-- Delivery log of outgoing webhooks (package webhooks): one row per attempt
-- of a webhooks.post receiver, read by administrators through
-- GET /event-receivers/{id}/deliveries. The retries themselves are jobs.
CREATE TABLE webhook_deliveries (
    id             UUID PRIMARY KEY,
    receiver_id    UUID NOT NULL,
    delivery_id    UUID NOT NULL,
    event_name     TEXT NOT NULL,
    attempt        INTEGER NOT NULL,
    status         TEXT NOT NULL,
    http_status    INTEGER,
    duration_ms    INTEGER NOT NULL,
    answer_excerpt TEXT NOT NULL,
    error          TEXT NOT NULL,
    next_retry_at  TIMESTAMPTZ,
    created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_deliveries_receiver ON webhook_deliveries(receiver_id, created_at);
