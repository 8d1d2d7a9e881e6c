package field

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

type fakeEnv struct{}

func (fakeEnv) Subject(_ context.Context, typ, id string) (string, error) {
	if id == "0f8fad5b-d9cb-469f-a165-70867728950e" {
		return "Ann " + typ, nil
	}
	return "", errors.New("missing")
}

func (fakeEnv) LookupItem(_ context.Context, _ *Def, id int64) (string, error) {
	if id == 7 {
		return "Seven", nil
	}
	return "", errors.New("missing")
}

const ann = "0f8fad5b-d9cb-469f-a165-70867728950e"

func TestNormalize(t *testing.T) {
	no, yes := false, true
	cases := []struct {
		typ      string
		settings FieldSettings
		in       string
		want     any
		bad      bool
	}{
		{Text, FieldSettings{}, `"  hi  "`, "hi", false},
		{Text, FieldSettings{}, `"   "`, nil, false},
		{Text, FieldSettings{}, `12`, nil, true},
		{MultilineText, FieldSettings{}, `"a\nb "`, "a\nb ", false},
		{HTMLText, FieldSettings{}, `"<a href=\"javascript:x\">x</a><script>1</script>"`, "x", false},
		{Number, FieldSettings{}, `"1.5"`, 1.5, false},
		{Number, FieldSettings{}, `"x"`, nil, true},
		{Number, FieldSettings{}, `""`, nil, false},
		{Date, FieldSettings{}, `"2026-02-30"`, nil, true},
		{Date, FieldSettings{}, `"2026-02-03"`, "2026-02-03", false},
		{DateTime, FieldSettings{}, `"2026-02-03T10:00:00+03:00"`, "2026-02-03T07:00:00.000Z", false},
		{DateTime, FieldSettings{}, `"2026-02-03"`, "2026-02-03T00:00:00.000Z", false},
		{DateTime, FieldSettings{}, `"soon"`, nil, true},
		{Boolean, FieldSettings{}, `true`, true, false},
		{Boolean, FieldSettings{}, `"true"`, nil, true},
		{Choice, FieldSettings{Choices: []string{"a", "b"}, AllowMultiple: &no}, `"a"`, "a", false},
		{Choice, FieldSettings{Choices: []string{"a", "b"}, AllowMultiple: &no}, `["a","b"]`, nil, true},
		{Choice, FieldSettings{Choices: []string{"a", "b"}, AllowMultiple: &yes}, `["b","a","b"]`, []string{"b", "a"}, false},
		{Choice, FieldSettings{Choices: []string{"a", "b"}, AllowMultiple: &yes}, `[]`, nil, false},
		{Choice, FieldSettings{Choices: []string{"a", "b"}}, `"c"`, nil, true},
		{Person, FieldSettings{}, `"` + ann + `"`, []Subject{{"user", ann, "Ann user"}}, false},
		{Person, FieldSettings{AllowMultiple: &no}, `{"principalType":"group","id":"` + ann + `"}`, Subject{"group", ann, "Ann group"}, false},
		{Person, FieldSettings{AllowGroups: &no}, `{"principalType":"group","id":"` + ann + `"}`, nil, true},
		{Person, FieldSettings{}, `{"id":"1b4e28ba-2fa1-11d2-883f-0016d3cca427"}`, nil, true},
		{Person, FieldSettings{}, `{"principalType":"robot","id":"` + ann + `"}`, nil, true},
		{Lookup, FieldSettings{}, `7`, LookupValue{7, "Seven"}, false},
		{Lookup, FieldSettings{}, `{"itemId":"7"}`, LookupValue{7, "Seven"}, false},
		{Lookup, FieldSettings{AllowMultiple: &yes}, `[7,{"itemId":7}]`, []LookupValue{{7, "Seven"}}, false},
		{Lookup, FieldSettings{}, `8`, nil, true},
		{Link, FieldSettings{}, `"https://x.example"`, LinkValue{URL: "https://x.example"}, false},
		{Link, FieldSettings{}, `{"url":"javascript:alert(1)"}`, nil, true},
		{Link, FieldSettings{}, `{"url":"/local","description":" d "}`, LinkValue{URL: "/local", Description: "d"}, false},
	}
	for _, c := range cases {
		f := &Def{ID: "f", Title: "F", Type: c.typ, Settings: c.settings, Col: 1}
		got, err := MustOf(f).Normalize(context.Background(), f, json.RawMessage(c.in), fakeEnv{})
		if c.bad {
			var fe *Error
			if !errors.As(err, &fe) || fe.FieldID != "f" {
				t.Errorf("%s %s: want a field error, got %v %v", c.typ, c.in, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s: got %#v %v, want %#v", c.typ, c.in, got, err, c.want)
		}
	}
}

func TestCellsRoundTrip(t *testing.T) {
	yes := true
	f := &Def{ID: "p", Type: Person, Col: 3, Settings: FieldSettings{AllowMultiple: &yes}}
	v := []Subject{{"user", ann, "Ann"}, {"group", "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "Team"}}
	c := MustOf(f).Cells(f, v)
	// references only: no display text, no lower-cased copy
	if _, ci := c["f_3_ci"]; ci || c["f_3"] != "u:"+ann+",g:1b4e28ba-2fa1-11d2-883f-0016d3cca427" {
		t.Fatalf("cells %v", c)
	}
	cond, args, err := MustOf(f).Filter(f, OpEq, Operand{Value: ann})
	if err != nil || cond != `(f_3 LIKE ? ESCAPE '\')` || args[0] != `%`+ann+`%` {
		t.Fatalf("filter %s %v %v", cond, args, err)
	}
	// displays are resolved by the owner of the table, not stored
	for i := range v {
		v[i].Display = ""
	}
	if back := MustOf(f).Decode(f, c["f_3"]); !reflect.DeepEqual(back, v) {
		t.Fatalf("decode %v", back)
	}
}

func TestResolveDay(t *testing.T) {
	today := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{"[Сегодня]": "2026-03-10", "[Сегодня]+7": "2026-03-17", "[Сегодня] - 3": "2026-03-07", "2026-01-01": "2026-01-01"} {
		d, ok := ResolveDay(in, today)
		if !ok || d.Format(time.DateOnly) != want {
			t.Errorf("%s: %v %v", in, d, ok)
		}
	}
	for _, bad := range []string{"[Сегодня]7", "[Сегодня]+x", "tomorrow", "[Сегодня]+999999999"} {
		if _, ok := ResolveDay(bad, today); ok {
			t.Errorf("%s accepted", bad)
		}
	}
}
