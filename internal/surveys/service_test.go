package surveys

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/menu"
	"coreportal/internal/nodes"
	"coreportal/internal/recyclebin"
	"coreportal/internal/routes"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

var admin = &auth.Principal{UserID: uuid.NewString(), Login: "admin", IsAdmin: true}

func newService(t testing.TB, db *store.DB, users map[string]string) *Service {
	engine := acl.New(db, bus.NewMemory())
	n := nodes.New(db, engine)
	blobs, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return New(Deps{DB: db, ACL: engine, Nodes: n, Menu: menu.New(db, engine, n, routes.New(n, engine)), Bin: recyclebin.New(db, engine),
		Jobs: jobs.New(db), Blobs: blobs, Secret: []byte("test"),
		UserName: func(_ context.Context, id string) (string, error) {
			if name, ok := users[id]; ok {
				return name, nil
			}
			return "", fault.NotFound("user")
		}})
}

var statsDef = SurveyDefinition{Questions: []SurveyQuestion{
	{ID: "s", Type: TypeSingle, Title: "S", Options: []SurveyOption{{ID: "a", Text: "A"}, {ID: "b", Text: "B"}, {ID: "c", Text: "C"}}},
	{ID: "m", Type: TypeMultiple, Title: "M", Options: []SurveyOption{{ID: "x", Text: "X"}, {ID: "y", Text: "Y"}}},
	{ID: "n", Type: TypeNumber, Title: "N"}, {ID: "d", Type: TypeDate, Title: "D"}, {ID: "u", Type: TypeUsers, Title: "U"},
}}

// TestStatsMatchAnswers stores random answers on both databases and checks
// that the SQL aggregates equal the same figures computed from the answers.
func TestStatsMatchAnswers(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		users := map[string]string{}
		var ids []string
		for i := range 5 {
			id := uuid.NewString()
			users[id], ids = fmt.Sprintf("User %d", i), append(ids, id)
		}
		s := newService(t, db, users)
		node, err := s.Nodes.Create(ctx, admin, nodes.NewNode{Slug: "n", Title: "N"})
		if err != nil {
			t.Fatal(err)
		}
		card, err := s.Create(ctx, admin, NewSurvey{NodeID: node.ID, Slug: "s", Title: "S", Definition: statsDef})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Transition(ctx, admin, card.ID, "publish"); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, 9))
		opt := map[string]int64{}
		var nums []float64
		var dates []string
		userCount := map[string]int64{}
		answered := map[string]int64{}
		var in []SeedResponse
		for range 301 {
			a := map[string]any{}
			if r.IntN(4) > 0 {
				o := []string{"a", "b", "c"}[r.IntN(3)]
				a["s"] = map[string]any{"optionId": o}
				opt["s."+o]++
				answered["s"]++
			}
			var ms []any
			for _, o := range []string{"x", "y"} {
				if r.IntN(2) == 0 {
					ms = append(ms, o)
					opt["m."+o]++
				}
			}
			if len(ms) > 0 {
				answered["m"]++
			}
			a["m"] = map[string]any{"optionIds": ms}
			if r.IntN(3) > 0 {
				v := float64(r.IntN(2000)-1000) / 8
				a["n"] = map[string]any{"value": v}
				nums = append(nums, v)
				answered["n"]++
			}
			d := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(900)).Format(time.DateOnly)
			a["d"] = map[string]any{"date": d}
			dates = append(dates, d)
			answered["d"]++
			u := ids[r.IntN(len(ids))]
			a["u"] = map[string]any{"users": []any{map[string]any{"userId": u}}}
			userCount[u]++
			answered["u"]++
			in = append(in, SeedResponse{RespondentID: uuid.NewString(), Name: "R", Answers: a})
		}
		if err := s.SeedResponses(ctx, card.ID, in[:150]); err != nil {
			t.Fatal(err)
		}
		if err := s.SeedResponses(ctx, card.ID, in[150:]); err != nil {
			t.Fatal(err)
		}
		st, err := s.Stats(ctx, admin, card.ID)
		if err != nil {
			t.Fatal(err)
		}
		if st.AnswerCount != 301 {
			t.Fatalf("answerCount %d", st.AnswerCount)
		}
		sort.Float64s(nums)
		sort.Strings(dates)
		var sum float64
		for _, v := range nums {
			sum += v
		}
		median := nums[len(nums)/2]
		if len(nums)%2 == 0 {
			median = (nums[len(nums)/2-1] + nums[len(nums)/2]) / 2
		}
		for _, q := range st.Questions {
			if q.Answered != answered[q.ID] {
				t.Fatalf("%s answered %d, want %d", q.ID, q.Answered, answered[q.ID])
			}
			for _, o := range q.Options {
				if o.Count != opt[q.ID+"."+o.ID] {
					t.Fatalf("%s.%s count %d, want %d", q.ID, o.ID, o.Count, opt[q.ID+"."+o.ID])
				}
			}
			switch q.ID {
			case "n":
				if q.Number.Min != nums[0] || q.Number.Max != nums[len(nums)-1] || math.Abs(q.Number.Mean-sum/float64(len(nums))) > 1e-9 || q.Number.Median != median {
					t.Fatalf("number stats %+v, want min %v max %v mean %v median %v", q.Number, nums[0], nums[len(nums)-1], sum/float64(len(nums)), median)
				}
			case "d":
				if q.Dates.From != dates[0] || q.Dates.To != dates[len(dates)-1] {
					t.Fatalf("date range %+v", q.Dates)
				}
			case "u":
				for _, u := range q.Users {
					if u.Count != userCount[u.UserID] || u.Display != users[u.UserID] {
						t.Fatalf("user %+v, want %d", u, userCount[u.UserID])
					}
				}
			}
		}
		// the export reads every response back
		sv, err := s.load(ctx, card.ID)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.writeWorkbook(ctx, sv, io.Discard)
		if err != nil || rows != 301 {
			t.Fatalf("workbook rows %d err %v", rows, err)
		}
	})
}
