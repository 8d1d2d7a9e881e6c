package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// A NUL or invalid UTF-8 in an error text (e.g. an SMTP reply) or in a
// result never keeps the outcome from being recorded (PostgreSQL refuses
// them in TEXT and JSONB).
func TestOutcomeWithNULIsRecorded(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := fastQueue(db)
		q.Handle("t.nulerr", func(context.Context, *Job) (any, error) {
			return nil, Permanent(errors.New("550 bad\x00reply \xff"))
		})
		q.Handle("t.nulretry", func(context.Context, *Job) (any, error) { return nil, errors.New("421 try\x00later") })
		q.Handle("t.nulres", func(context.Context, *Job) (any, error) {
			return map[string]any{"reply": "ok\x00", "n": 12345678901234, "k\x00": []any{"\x00"}, "lit": `\u0000`}, nil
		})
		for _, tc := range []struct{ typ, status, text string }{
			{"t.nulerr", StatusFailed, "550 bad\uFFFDreply \uFFFD"},
			{"t.nulres", StatusSucceeded, "ok\uFFFD"},
			{"t.nulretry", StatusPending, "421 try\uFFFDlater"}, // last: it comes back soon
		} {
			id, err := q.Enqueue(ctx, tc.typ, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ran, err := q.RunOnce(ctx); !ran || err != nil {
				t.Fatalf("%s: %v %v", tc.typ, ran, err)
			}
			j, err := q.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got := j.Error
			if tc.typ == "t.nulres" {
				var res map[string]any
				if err := json.Unmarshal(j.Result, &res); err != nil {
					t.Fatalf("result %s: %v", j.Result, err)
				}
				got, _ = res["reply"].(string)
				if res["n"] != float64(12345678901234) || res["lit"] != `\u0000` || fmt.Sprint(res["k\uFFFD"]) != "[\uFFFD]" {
					t.Fatalf("result changed beyond the NULs: %s", j.Result)
				}
			}
			if j.Status != tc.status || got != tc.text {
				t.Fatalf("%s: %s %q, want %s with %q", tc.typ, j.Status, got, tc.status, tc.text)
			}
		}
	})
}
