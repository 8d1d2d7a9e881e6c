package search

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// rankFixture indexes lists (each its own container) under a node the
// reader views and one under a node it does not, with chosen update times.
func rankFixture(t *testing.T, db *store.DB) *fixture {
	f := newFixture(t, db)
	open, hidden := f.node("", "open"), f.node("", "hidden")
	f.grant(acl.Ref{Type: acl.Node, ID: open}, acl.View)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range []struct {
		node, title, body string
		hours             int
	}{
		{open, "alpha beta report", "", 1},
		{open, "Beta and alpha", "", 0},
		{open, "misc", "notes on alpha beta", 3},
		{open, "alpha note", "beta", 2},
		{open, "unrelated", "gamma", 4},
		{hidden, "alpha beta secret", "", 5},
	} {
		id := uuid.NewString()
		f.object(acl.List, acl.Ref{Type: acl.Node, ID: d.node}, Doc{Type: TypeList, ID: id, NodeID: d.node, ContainerID: id,
			Slug: "l" + id[:8], Title: d.title, Body: d.body, UpdatedAt: t0.Add(time.Duration(d.hours) * time.Hour)})
	}
	return f
}

// ranked runs a search and returns the titles with their scores, in order.
func (f *fixture) ranked(p *auth.Principal, q string, page, limit int) ([]string, Found) {
	f.t.Helper()
	found, err := f.svc.Search(context.Background(), p, Request{Q: q, Page: page, Limit: limit})
	if err != nil {
		f.t.Fatal(err)
	}
	out := []string{}
	for _, h := range found.Hits {
		out = append(out, h.Title+"="+map[float64]string{scoreTitle: "2", scoreBody: "1"}[h.Score])
	}
	return out, found
}

// TestRankingTiers: results whose title holds every term come first, then
// the others, newest first within a tier; phrases, prefixes and rights
// apply to both tiers; both databases answer alike.
func TestRankingTiers(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := rankFixture(t, db)
		all := []string{"alpha beta report=2", "Beta and alpha=2", "misc=1", "alpha note=1"}
		for _, c := range []struct {
			q    string
			p    *auth.Principal
			want []string
		}{
			{"alpha beta", f.reader, all},
			{"beta alpha", f.reader, all},
			{"alph* bet*", f.reader, all},
			{`"alpha beta"`, f.reader, []string{"alpha beta report=2", "misc=1"}},
			{"alpha", f.reader, []string{"alpha note=2", "alpha beta report=2", "Beta and alpha=2", "misc=1"}},
			{"alpha beta", f.admin, append([]string{"alpha beta secret=2"}, all...)},
			{"gamma", f.reader, []string{"unrelated=1"}},
		} {
			got, found := f.ranked(c.p, c.q, 1, 20)
			if !slices.Equal(got, c.want) || found.Total != len(c.want) || found.AtLeast {
				t.Errorf("%s %q: %v (total %d, at least %v), want %v", db.Dialect, c.q, got, found.Total, found.AtLeast, c.want)
			}
		}
		// pages of one are the same order
		var paged []string
		for p := 1; p <= 5; p++ {
			got, found := f.ranked(f.reader, "alpha beta", p, 1)
			if found.Total != 4 || (p <= 4) != (len(got) == 1) {
				t.Fatalf("%s page %d: %v total %d", db.Dialect, p, got, found.Total)
			}
			paged = append(paged, got...)
		}
		if !slices.Equal(paged, all) {
			t.Errorf("%s paged %v", db.Dialect, paged)
		}
	})
}

// TestTotalCap: beyond the cap the total is the cap with AtLeast, pages
// start within the cap and keep the order of the tiers; hidden entries are
// neither counted nor returned.
func TestTotalCap(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := rankFixture(t, db)
		for _, c := range []struct {
			cap, page, limit int
			p                *auth.Principal
			want             []string
			total            int
			atLeast          bool
		}{
			{2, 1, 1, f.reader, []string{"alpha beta report=2"}, 2, true},
			{2, 2, 1, f.reader, []string{"Beta and alpha=2"}, 2, true},
			{2, 3, 1, f.reader, []string{}, 2, true},
			{3, 1, 2, f.reader, []string{"alpha beta report=2", "Beta and alpha=2"}, 3, true},
			{3, 2, 2, f.reader, []string{"misc=1", "alpha note=1"}, 3, true},
			// more title matches than the cap: the page holds title matches only
			{1, 1, 5, f.reader, []string{"alpha beta report=2", "Beta and alpha=2"}, 1, true},
			{1, 1, 5, f.admin, []string{"alpha beta secret=2", "alpha beta report=2", "Beta and alpha=2"}, 1, true},
			{4, 1, 5, f.reader, []string{"alpha beta report=2", "Beta and alpha=2", "misc=1", "alpha note=1"}, 4, false},
		} {
			f.svc.st.countCap = c.cap
			got, found := f.ranked(c.p, "alpha beta", c.page, c.limit)
			if !slices.Equal(got, c.want) || found.Total != c.total || found.AtLeast != c.atLeast {
				t.Errorf("%s cap %d page %d limit %d: %v total %d at least %v, want %v %d %v", db.Dialect, c.cap, c.page, c.limit,
					got, found.Total, found.AtLeast, c.want, c.total, c.atLeast)
			}
		}
	})
}
