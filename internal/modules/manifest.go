package modules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/nodes"
	"coreportal/internal/web"
)

// Manifest is module.json, the description of a module package (see the
// README section "Modules" and the install operation's description).
type Manifest struct {
	ID          string     `json:"id"`
	Version     string     `json:"version"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	Requires    []string   `json:"requires,omitempty"`
	Provisioner string     `json:"provisioner,omitempty"`
	Resources   []Resource `json:"resources,omitempty"`

	reqs  []Requirement // parsed Requires
	order []int         // indexes of Resources in creation order (references first)
}

// Ref points at another resource: a key of this module ("nodes.tasks") or
// of a required module ("modules.acme.base.nodes.home").
type Ref struct {
	Ref string `json:"$ref"`
}

// Resource is one thing a module creates. Which attributes apply depends on
// type (node, list, library, page, group, menuItem).
type Resource struct {
	Key         string      `json:"key"`
	Type        string      `json:"type"`
	Title       string      `json:"title,omitempty"`
	Slug        string      `json:"slug,omitempty"`
	Description string      `json:"description,omitempty"`
	SortOrder   int         `json:"sortOrder,omitempty"`    // node
	Parent      *Ref        `json:"parent,omitempty"`       // node: parent node (absent = root)
	Node        *Ref        `json:"node,omitempty"`         // list, library, page: the node it lives on
	Content     string      `json:"content,omitempty"`      // page (HTML, sanitised by pages)
	Name        string      `json:"name,omitempty"`         // group
	Link        string      `json:"link,omitempty"`         // menuItem: slug path, #/ link, http(s) or mailto URL
	NewTab      bool        `json:"openInNewTab,omitempty"` // menuItem
	Fields      []FieldSpec `json:"fields,omitempty"`       // list
	Views       []ViewSpec  `json:"views,omitempty"`        // list

	lookups []lookupRef // $ref values in field settings (lookups.go)
}

// FieldSpec is a list field, as POST /lists/{id}/fields takes it.
type FieldSpec struct {
	InternalName string          `json:"internalName"`
	Title        string          `json:"title"`
	FieldType    string          `json:"fieldType"`
	IsRequired   bool            `json:"isRequired,omitempty"`
	Settings     json.RawMessage `json:"settings,omitempty"`
}

// ViewSpec is a list view, as POST /lists/{id}/views takes it; key names it
// in the resource map (<list key>.views.<key>).
type ViewSpec struct {
	Key       string          `json:"key,omitempty"`
	Title     string          `json:"title"`
	IsDefault bool            `json:"isDefault,omitempty"`
	Config    json.RawMessage `json:"config,omitempty"`
}

// Resource types and what their $ref attributes must point at.
const (
	TypeNode    = "node"
	TypeList    = "list"
	TypeLibrary = "library"
	TypePage    = "page"
	TypeGroup   = "group"
	TypeMenu    = "menuItem"
)

var resourceTypes = map[string]bool{TypeNode: true, TypeList: true, TypeLibrary: true, TypePage: true, TypeGroup: true, TypeMenu: true}

const (
	maxManifestBytes = 1 << 20
	maxResources     = 200
	maxFieldsPerList = 100
	maxViewsPerList  = 20
	// Across the whole package (an installation is one transaction that
	// holds the portal's only writer on SQLite): each view builds up to two
	// indexes, about 1-2 ms each on SQLite with hundreds of lists.
	maxFieldsPerPackage = 5000
	maxViewsPerPackage  = 400
	// maxAddedFields bounds the fields one installation adds to lists that
	// exist already (an upgrade) or after a self-lookup: each is an ALTER
	// TABLE, which on SQLite re-reads the portal's whole schema (3 ms on a
	// small portal, 16 ms with 150 lists of 100 fields, 80 ms with 350 lists
	// and 4000 view indexes).
	maxAddedFields = 100
)

var resKeyRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*){0,5}$`)

// invalid is a 400 naming the offending place of module.json. Values it
// quotes are cut to maxEcho characters: an error need not repeat 100 KB.
func invalid(path, format string, args ...any) error {
	for i, a := range args {
		if s, ok := a.(string); ok {
			if r := []rune(s); len(r) > maxEcho {
				args[i] = string(r[:maxEcho]) + "…"
			}
		}
	}
	return fault.Validation(path, "module.json: "+path+": "+format, args...)
}

// maxEcho is the most characters of a value an error message repeats.
const maxEcho = 80

// ParseManifest decodes module.json strictly (unknown attributes are
// refused, so a typo is not silently ignored) and validates it completely,
// so that nothing is written for a package that cannot be installed.
func ParseManifest(raw []byte, provisioners map[string]Provisioner) (*Manifest, error) {
	if len(raw) > maxManifestBytes {
		return nil, fault.Validation("module.json", "module.json is larger than %d bytes", maxManifestBytes)
	}
	// the same text rule as every JSON request body (NUL, invalid UTF-8,
	// lone surrogates): PostgreSQL would refuse such text, SQLite keep it
	if err := web.CheckJSONText("module.json", raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fault.Validation("module.json", "module.json is not valid: %s", web.DescribeJSON(raw, err).Error())
	}
	if dec.More() {
		return nil, fault.Validation("module.json", "module.json holds more than one JSON value")
	}
	if err := m.validate(provisioners); err != nil {
		return nil, err
	}
	return &m, nil
}

func (m *Manifest) validate(provisioners map[string]Provisioner) error {
	if !ValidKey(m.ID) {
		return invalid("id", "%q is not a module key (dotted lower-case words such as acme.tasks)", m.ID)
	}
	if !ValidVersion(m.Version) {
		return invalid("version", "%q is not a semantic version such as 1.2.0", m.Version)
	}
	var err error
	if m.Title, err = fault.RequiredText("title", m.Title, 200); err != nil {
		return invalid("title", "a title of at most 200 characters is required")
	}
	if fault.MaxText("description", m.Description, 4000) != nil {
		return invalid("description", "at most 4000 characters")
	}
	if m.Provisioner != "" && provisioners[m.Provisioner] == nil {
		return invalid("provisioner", "%q is not a built-in provisioner", m.Provisioner)
	}
	seen := map[string]bool{}
	for i, s := range m.Requires {
		r, err := ParseRequirement(s)
		if err != nil {
			return invalid(fmt.Sprintf("requires[%d]", i), "%s", err.Error())
		}
		if r.Key == m.ID || seen[r.Key] {
			return invalid(fmt.Sprintf("requires[%d]", i), "%q is the module itself or named twice", r.Key)
		}
		seen[r.Key] = true
		m.reqs = append(m.reqs, r)
	}
	if len(m.Resources) > maxResources {
		return invalid("resources", "at most %d resources", maxResources)
	}
	if err := m.checkTotals(); err != nil {
		return err
	}
	index := map[string]int{}
	for i := range m.Resources {
		r := &m.Resources[i]
		path := fmt.Sprintf("resources[%d]", i)
		if !resKeyRE.MatchString(r.Key) || len(r.Key) > 100 {
			return invalid(path+".key", "%q is not a resource key (dotted lower-case words such as lists.tasks)", r.Key)
		}
		if _, dup := index[r.Key]; dup {
			return invalid(path+".key", "key %q is used twice", r.Key)
		}
		index[r.Key] = i
		if err := r.validate(path); err != nil {
			return err
		}
	}
	for i := range m.Resources {
		if err := m.checkRefs(i, index); err != nil {
			return err
		}
	}
	order, err := m.creationOrder(index)
	if err != nil {
		return err
	}
	m.order = order
	return nil
}

// checkTotals bounds the fields and views of the whole package.
func (m *Manifest) checkTotals() error {
	fields, views := 0, 0
	for i := range m.Resources {
		fields += len(m.Resources[i].Fields)
		views += len(m.Resources[i].Views)
	}
	if fields > maxFieldsPerPackage || views > maxViewsPerPackage {
		return invalid("resources", "at most %d fields and %d views in all lists of a package (this one has %d and %d): split it into modules that require each other",
			maxFieldsPerPackage, maxViewsPerPackage, fields, views)
	}
	return nil
}

func (r *Resource) validate(path string) error {
	if !resourceTypes[r.Type] {
		return invalid(path+".type", "unknown type %q (node, list, library, page, group, menuItem)", r.Type)
	}
	if r.Type == TypeGroup {
		if _, err := fault.RequiredText("name", r.Name, 200); err != nil {
			return invalid(path+".name", "a group name of at most 200 characters is required")
		}
	} else {
		if _, err := fault.RequiredText("title", r.Title, 200); err != nil {
			return invalid(path+".title", "a title of at most 200 characters is required")
		}
	}
	if r.Type != TypeMenu && (r.Link != "" || r.NewTab) {
		return invalid(path+".link", "only a menuItem has a link")
	}
	if len(r.Link) > 2000 {
		return invalid(path+".link", "at most 2000 characters")
	}
	if r.Type != TypeGroup && r.Type != TypeMenu {
		if err := nodes.CheckSlug("slug", r.Slug); err != nil {
			fe, _ := fault.As(err)
			return invalid(path+".slug", "%s", fe.Message)
		}
	}
	if r.Parent != nil && r.Type != TypeNode {
		return invalid(path+".parent", "only a node has a parent (use node for a %s)", r.Type)
	}
	needsNode := r.Type == TypeList || r.Type == TypeLibrary || r.Type == TypePage || r.Type == TypeMenu
	if needsNode && r.Node == nil {
		return invalid(path+".node", "a %s needs node: {\"$ref\": ...}", r.Type)
	}
	if !needsNode && r.Node != nil {
		return invalid(path+".node", "a %s has no node", r.Type)
	}
	if r.Content != "" && r.Type != TypePage {
		return invalid(path+".content", "only a page has content")
	}
	if (len(r.Fields) > 0 || len(r.Views) > 0) && r.Type != TypeList {
		return invalid(path+".fields", "only a list has fields and views")
	}
	return r.validateListParts(path)
}

func (r *Resource) validateListParts(path string) error {
	if err := r.parseLookups(path); err != nil {
		return err
	}
	if len(r.Fields) > maxFieldsPerList || len(r.Views) > maxViewsPerList {
		return invalid(path, "at most %d fields and %d views", maxFieldsPerList, maxViewsPerList)
	}
	names := map[string]bool{}
	for j, f := range r.Fields {
		fp := fmt.Sprintf("%s.fields[%d]", path, j)
		if !resKeyRE.MatchString(f.InternalName) || strings.Contains(f.InternalName, ".") || names[f.InternalName] {
			return invalid(fp+".internalName", "%q is missing, not a single lower-case word or used twice", f.InternalName)
		}
		names[f.InternalName] = true
		if strings.TrimSpace(f.Title) == "" {
			return invalid(fp+".title", "a field title is required")
		}
		if _, ok := field.Of(f.FieldType); !ok {
			return invalid(fp+".fieldType", "unknown field type %q (%s)", f.FieldType, strings.Join(field.Types(), ", "))
		}
	}
	keys := map[string]bool{}
	for j, v := range r.Views {
		vp := fmt.Sprintf("%s.views[%d]", path, j)
		if strings.TrimSpace(v.Title) == "" {
			return invalid(vp+".title", "a view title is required")
		}
		if v.Key != "" && (!resKeyRE.MatchString(v.Key) || strings.Contains(v.Key, ".") || keys[v.Key]) {
			return invalid(vp+".key", "%q is not a single lower-case word or is used twice", v.Key)
		}
		keys[v.Key] = v.Key != ""
	}
	return nil
}

// refOf returns the reference attribute of a resource and its path.
func (r *Resource) refOf(path string) (*Ref, string) {
	if r.Parent != nil {
		return r.Parent, path + ".parent.$ref"
	}
	if r.Node != nil {
		return r.Node, path + ".node.$ref"
	}
	return nil, ""
}

// checkRefs checks that a reference names a node of this module or a
// resource of a module this one requires.
func (m *Manifest) checkRefs(i int, index map[string]int) error {
	for _, l := range m.Resources[i].lookups {
		if err := m.checkLookup(l, index); err != nil {
			return err
		}
	}
	ref, path := m.Resources[i].refOf(fmt.Sprintf("resources[%d]", i))
	if ref == nil {
		return nil
	}
	if dep, rest, ok := m.splitModuleRef(ref.Ref); ok {
		if rest == "" {
			return invalid(path, "%q names module %s but no resource of it", ref.Ref, dep)
		}
		return nil
	}
	if strings.HasPrefix(ref.Ref, "modules.") {
		return invalid(path, "%q names a module that is not in requires", ref.Ref)
	}
	j, ok := index[ref.Ref]
	if !ok {
		return invalid(path, "%q is not a key of this module's resources", ref.Ref)
	}
	if m.Resources[j].Type != TypeNode {
		return invalid(path, "%q is a %s, a node is needed", ref.Ref, m.Resources[j].Type)
	}
	return nil
}

// splitModuleRef splits "modules.<key>.<path>" for a required module key
// (the longest that matches, since keys are dotted too).
func (m *Manifest) splitModuleRef(ref string) (key, path string, ok bool) {
	rest, found := strings.CutPrefix(ref, "modules.")
	if !found {
		return "", "", false
	}
	for _, r := range m.reqs {
		if p, cut := strings.CutPrefix(rest, r.Key+"."); cut && len(r.Key) > len(key) {
			key, path, ok = r.Key, p, true
		} else if rest == r.Key && len(r.Key) > len(key) {
			key, path, ok = r.Key, "", true
		}
	}
	return key, path, ok
}

// creationOrder sorts resources so that each comes after the node it
// references and the lists its lookups name; a cycle is refused.
func (m *Manifest) creationOrder(index map[string]int) ([]int, error) {
	const (
		unseen = iota
		visiting
		done
	)
	state := make([]int, len(m.Resources))
	order := make([]int, 0, len(m.Resources))
	var visit func(i int, chain []string) error
	visit = func(i int, chain []string) error {
		switch state[i] {
		case done:
			return nil
		case visiting:
			return invalid(fmt.Sprintf("resources[%d]", i), "$ref cycle: %s", strings.Join(append(chain, m.Resources[i].Key), " -> "))
		}
		state[i] = visiting
		var deps []string
		if ref, _ := m.Resources[i].refOf(""); ref != nil {
			deps = append(deps, ref.Ref)
		}
		for _, l := range m.Resources[i].lookups {
			if t := l.target(); t != m.Resources[i].Key { // a list may look itself up
				deps = append(deps, t)
			}
		}
		for _, d := range deps {
			if j, local := index[d]; local {
				if err := visit(j, append(chain, m.Resources[i].Key)); err != nil {
					return err
				}
			}
		}
		state[i] = done
		order = append(order, i)
		return nil
	}
	for i := range m.Resources {
		if err := visit(i, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}
