package store

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// crossReads are the known reads of another package's tables, each with the
// owner's function that is to replace it. Keep it short: an entry goes when
// its read does (the test fails on an entry that matches nothing).
var crossReads = []struct{ pkg, table, replace string }{
	// search joins nodes for node paths and the node filter
	{"search", "nodes", "nodes.Service for node paths and the node filter"},
	// person displays, filters and pickers compose SQL over users and groups
	// (lists: pickers.go, rowcols.go, table.go, importconv.go; field: person.go)
	{"lists", "users", "the reference resolver over users.Service/principals.Names"},
	{"lists", "groups", "the reference resolver over groups.Service/principals.Names"},
	{"field", "users", "the reference resolver over users.Service/principals.Names"},
	{"field", "groups", "the reference resolver over groups.Service/principals.Names"},
	// acl resolves a user's groups and the names of its records' principals;
	// it sits below groups and users, so they would hand it a resolver
	// (as lists hands it the item-number resolver)
	{"acl", "group_members", "a membership resolver registered by groups"},
	{"acl", "users", "principals.Names.Lookup for record names"},
	{"acl", "groups", "principals.Names.Lookup for record names"},
	// principals is the name cache of users and groups, below both
	{"principals", "users", "a name source registered by users"},
	{"principals", "groups", "a name source registered by groups"},
	// a group's members with their logins and names, sorted by the database
	{"groups", "users", "users.Service: the members' accounts by id, in the same order"},
}

// sqlTable finds the table after an SQL keyword that names one.
var sqlTable = regexp.MustCompile(`\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:ONLY\s+)?([a-z_][a-z0-9_]*)\b`)

// createdTable finds the tables a migration creates.
var createdTable = regexp.MustCompile(`(?i)\bCREATE\s+(?:UNLOGGED\s+|VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)

// tableOwners reads migrations/owners.txt: table → owner, and the packages
// that may name every table.
func tableOwners(t *testing.T) (map[string]string, []string) {
	t.Helper()
	f, err := migrationFS.Open("migrations/owners.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	owners := map[string]string{}
	var everything []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		parts := strings.Fields(line)
		switch {
		case len(parts) == 0:
		case len(parts) != 2:
			t.Fatalf("owners.txt: %q is not \"table owner\"", sc.Text())
		case parts[0] == "*":
			everything = append(everything, parts[1])
		case owners[parts[0]] != "":
			t.Fatalf("owners.txt: %s has two owners", parts[0])
		default:
			owners[parts[0]] = parts[1]
		}
	}
	return owners, everything
}

// sqlReads maps "pkg\ttable" to the places where a Go string literal of a
// non-test file names a table of owners in SQL.
func sqlReads(t *testing.T, fset *token.FileSet, file *ast.File, pkg string, owners map[string]string, out map[string][]string) {
	t.Helper()
	ast.Inspect(file, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, m := range sqlTable.FindAllStringSubmatch(s, -1) {
			if owner, ok := owners[m[1]]; ok && owner != pkg && !strings.HasPrefix(pkg, owner+"/") { // an owner's sub-packages share its tables
				out[pkg+"\t"+m[1]] = append(out[pkg+"\t"+m[1]], fset.Position(lit.Pos()).String())
			}
		}
		return true
	})
}

// crossPackageReads scans every non-test Go file under root/internal and
// root/cmd.
func crossPackageReads(t *testing.T, root string, owners map[string]string, everything []string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(root, "internal"), filepath.Dir(p))
			pkg := filepath.ToSlash(rel)
			if top == "cmd" {
				pkg = "cmd"
			}
			if slices.Contains(everything, pkg) || strings.HasSuffix(pkg, "test") { // test helpers (storetest) build fixtures
				return nil
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return fmt.Errorf("parse %s: %w", p, err)
			}
			sqlReads(t, fset, file, pkg, owners, out)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestTableOwners is the architecture test of table ownership: no package's
// SQL names a table another package owns (migrations/owners.txt), but the
// commented entries of crossReads; every table of the migrations has an owner.
func TestTableOwners(t *testing.T) {
	owners, everything := tableOwners(t)
	created := map[string]bool{}
	for _, d := range []Dialect{SQLite, Postgres} {
		migs, err := loadMigrations(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range migs {
			for _, c := range createdTable.FindAllStringSubmatch(m.sql, -1) {
				created[c[1]] = true
			}
		}
	}
	created["schema_migrations"] = true // made by Migrate itself
	for table := range created {
		if owners[table] == "" {
			t.Errorf("table %s has no owner in migrations/owners.txt", table)
		}
	}
	for table := range owners {
		if !created[table] {
			t.Errorf("owners.txt names %s, which no migration creates", table)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	reads := crossPackageReads(t, root, owners, everything)
	for _, a := range crossReads {
		k := a.pkg + "\t" + a.table
		if _, ok := reads[k]; !ok {
			t.Errorf("crossReads lists %s reading %s, which it no longer does: remove the entry", a.pkg, a.table)
		}
		delete(reads, k)
	}
	for k, at := range reads {
		pkg, table, _ := strings.Cut(k, "\t")
		t.Errorf("package %s names table %s, owned by %s, in SQL at %s: call a typed function of %s instead",
			pkg, table, owners[table], strings.Join(at, ", "), owners[table])
	}
}

// The check finds a planted read of another package's table, in a FROM, a
// JOIN or a write, and leaves the owner's own SQL and plain words alone.
func TestTableOwnersFindsPlantedRead(t *testing.T) {
	owners := map[string]string{"users": "users", "acl_entries": "acl"}
	src := `package lists
const a = "SELECT display_name FROM users WHERE id = ?"
const b = "SELECT 1 FROM x JOIN acl_entries e ON e.id = x.id"
const c = "the users of a list" // prose, not SQL
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	sqlReads(t, fset, file, "lists", owners, out)
	if len(out) != 2 || len(out["lists\tusers"]) != 1 || len(out["lists\tacl_entries"]) != 1 {
		t.Fatalf("found %v", out)
	}
	out = map[string][]string{}
	sqlReads(t, fset, file, "users", map[string]string{"users": "users"}, out)
	if len(out) != 0 {
		t.Fatalf("the owner's own SQL reported: %v", out)
	}
}
