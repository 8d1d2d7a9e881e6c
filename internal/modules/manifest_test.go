package modules

import (
	"strings"
	"testing"

	"coreportal/internal/fault"
)

func TestParseManifest(t *testing.T) {
	const head = `"id":"acme.tasks","version":"1.0.0","title":"Tasks"`
	cases := []struct {
		name, json, field string // field: expected details.field ("" = valid)
	}{
		{"minimal", `{` + head + `}`, ""},
		{"full", `{` + head + `,"requires":["acme.base@>=1.0.0"],"provisioner":"core.log","resources":[
			{"key":"lists.tasks","type":"list","node":{"$ref":"nodes.tasks"},"title":"T","slug":"t","fields":[{"internalName":"due","title":"Due","fieldType":"date"}],"views":[{"key":"open","title":"Open"}]},
			{"key":"nodes.tasks","type":"node","title":"Tasks","slug":"tasks","parent":{"$ref":"modules.acme.base.nodes.home"}},
			{"key":"groups.leads","type":"group","name":"Leads"}]}`, ""},
		{"not json", `{`, "module.json"},
		{"unknown attribute", `{` + head + `,"resource":[]}`, "module.json"},
		{"bad id", `{"id":"Acme","version":"1.0.0","title":"T"}`, "id"},
		{"bad version", `{"id":"acme.x","version":"1.0","title":"T"}`, "version"},
		{"no title", `{"id":"acme.x","version":"1.0.0","title":" "}`, "title"},
		{"bad requires", `{` + head + `,"requires":["acme.base@>=x"]}`, "requires[0]"},
		{"self requires", `{` + head + `,"requires":["acme.tasks"]}`, "requires[0]"},
		{"unknown provisioner", `{` + head + `,"provisioner":"rm-rf"}`, "provisioner"},
		{"unknown type", `{` + head + `,"resources":[{"key":"x","type":"calendar","title":"T","slug":"t"}]}`, "resources[0].type"},
		{"duplicate key", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},{"key":"n","type":"node","title":"U","slug":"u"}]}`, "resources[1].key"},
		{"bad key", `{` + head + `,"resources":[{"key":"N!","type":"node","title":"T","slug":"t"}]}`, "resources[0].key"},
		{"bad slug", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"Bad Slug"}]}`, "resources[0].slug"},
		{"dangling ref", `{` + head + `,"resources":[{"key":"l","type":"list","title":"T","slug":"t","node":{"$ref":"nodes.none"}}]}`, "resources[0].node.$ref"},
		{"ref to a list", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},{"key":"l","type":"list","title":"T","slug":"t","node":{"$ref":"n"}},{"key":"p","type":"page","title":"T","slug":"t","node":{"$ref":"l"}}]}`, "resources[2].node.$ref"},
		{"module ref not required", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t","parent":{"$ref":"modules.acme.base.nodes.home"}}]}`, "resources[0].parent.$ref"},
		{"module ref without path", `{` + head + `,"requires":["acme.base"],"resources":[{"key":"n","type":"node","title":"T","slug":"t","parent":{"$ref":"modules.acme.base"}}]}`, "resources[0].parent.$ref"},
		{"cycle", `{` + head + `,"resources":[{"key":"a","type":"node","title":"A","slug":"a","parent":{"$ref":"b"}},{"key":"b","type":"node","title":"B","slug":"b","parent":{"$ref":"a"}}]}`, "resources[0]"},
		{"list without node", `{` + head + `,"resources":[{"key":"l","type":"list","title":"T","slug":"t"}]}`, "resources[0].node"},
		{"parent on a list", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},{"key":"l","type":"list","title":"T","slug":"t","node":{"$ref":"n"},"parent":{"$ref":"n"}}]}`, "resources[1].parent"},
		{"fields on a node", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t","fields":[{"internalName":"a","title":"A","fieldType":"text"}]}]}`, "resources[0].fields"},
		{"duplicate field", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},{"key":"l","type":"list","title":"T","slug":"t","node":{"$ref":"n"},"fields":[{"internalName":"a","title":"A","fieldType":"text"},{"internalName":"a","title":"B","fieldType":"text"}]}]}`, "resources[1].fields[1].internalName"},
		{"menu item", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},{"key":"m","type":"menuItem","title":"Go","link":"/t","node":{"$ref":"n"}}]}`, ""},
		{"menu item without node", `{` + head + `,"resources":[{"key":"m","type":"menuItem","title":"Go","link":"/t"}]}`, "resources[0].node"},
		{"link on a page", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},{"key":"p","type":"page","title":"P","slug":"p","link":"/x","node":{"$ref":"n"}}]}`, "resources[1].link"},
		{"lookups", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},
			{"key":"a","type":"list","title":"A","slug":"a","node":{"$ref":"n"},"fields":[{"internalName":"ref","title":"R","fieldType":"lookup","settings":{"lookupListId":{"$ref":"b"},"lookupFieldId":{"$ref":"b.fields.code"}}},
				{"internalName":"parent","title":"P","fieldType":"lookup","settings":{"lookupListId":{"$ref":"a"}}}]},
			{"key":"b","type":"list","title":"B","slug":"b","node":{"$ref":"n"},"fields":[{"internalName":"code","title":"C","fieldType":"text"}]}]}`, ""},
		{"lookup to a node as a list", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},
			{"key":"a","type":"list","title":"A","slug":"a","node":{"$ref":"n"},"fields":[{"internalName":"ref","title":"R","fieldType":"lookup","settings":{"lookupListId":{"$ref":"n"}}}]}]}`, "resources[1].fields[0].settings.lookupListId.$ref"},
		{"lookup to an unknown field", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},
			{"key":"a","type":"list","title":"A","slug":"a","node":{"$ref":"n"},"fields":[{"internalName":"ref","title":"R","fieldType":"lookup","settings":{"lookupFieldId":{"$ref":"a.fields.nope"}}}]}]}`, "resources[1].fields[0].settings.lookupFieldId.$ref"},
		{"lookup cycle", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},
			{"key":"a","type":"list","title":"A","slug":"a","node":{"$ref":"n"},"fields":[{"internalName":"x","title":"X","fieldType":"lookup","settings":{"lookupListId":{"$ref":"b"}}}]},
			{"key":"b","type":"list","title":"B","slug":"b","node":{"$ref":"n"},"fields":[{"internalName":"y","title":"Y","fieldType":"lookup","settings":{"lookupListId":{"$ref":"a"}}}]}]}`, "resources[1]"},
		{"settings not an object", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},
			{"key":"a","type":"list","title":"A","slug":"a","node":{"$ref":"n"},"fields":[{"internalName":"x","title":"X","fieldType":"text","settings":[1]}]}]}`, "resources[1].fields[0].settings"},
		{"unknown field type", `{` + head + `,"resources":[{"key":"n","type":"node","title":"T","slug":"t"},{"key":"l","type":"list","title":"L","slug":"l","node":{"$ref":"n"},"fields":[{"internalName":"a","title":"A","fieldType":"money"}]}]}`, "resources[1].fields[0].fieldType"},
		{"group without name", `{` + head + `,"resources":[{"key":"g","type":"group"}]}`, "resources[0].name"},
	}
	prov := builtinProvisioners()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(c.json), prov)
			if c.field == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			fe, ok := fault.As(err)
			if !ok || fe.Code != fault.CodeValidation {
				t.Fatalf("want a validation error at %s, got %v (manifest %v)", c.field, err, m)
			}
			if fe.Details["field"] != c.field {
				t.Fatalf("field %v, want %s (%s)", fe.Details["field"], c.field, fe.Message)
			}
		})
	}
}

func TestCreationOrderPutsReferencesFirst(t *testing.T) {
	m, err := ParseManifest([]byte(`{"id":"acme.x","version":"1.0.0","title":"X","resources":[
		{"key":"p","type":"page","title":"P","slug":"p","node":{"$ref":"child"}},
		{"key":"child","type":"node","title":"C","slug":"c","parent":{"$ref":"root"}},
		{"key":"root","type":"node","title":"R","slug":"r"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, i := range m.order {
		keys = append(keys, m.Resources[i].Key)
	}
	if got := strings.Join(keys, ","); got != "root,child,p" {
		t.Fatalf("order %s", got)
	}
}

func TestSplitModuleRefTakesTheLongestKey(t *testing.T) {
	m := &Manifest{}
	for _, s := range []string{"acme", "acme.base"} {
		r, _ := ParseRequirement(s)
		m.reqs = append(m.reqs, r)
	}
	key, path, ok := m.splitModuleRef("modules.acme.base.nodes.home")
	if !ok || key != "acme.base" || path != "nodes.home" {
		t.Fatalf("got %q %q %v", key, path, ok)
	}
}
