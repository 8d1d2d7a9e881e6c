package lists

import (
	"context"
	"fmt"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
)

// newField validates one field to be added to a list (the rules of
// CreateField): at most maxFields per list counting the fields it has, the
// field input rules, a lookup target the caller can see, and an internal
// name no field of the list holds yet (have). The column is assigned later.
func (s *Service) newField(ctx context.Context, p *auth.Principal, listID string, have map[string]*field.Def, count int, in FieldInput) (*field.Def, error) {
	if count >= maxFields {
		return nil, fault.Validation("fieldType", "a list can have at most %d fields", maxFields)
	}
	f, err := field.New(listID, in, count*10, func(st field.FieldSettings) error { return s.checkLookupTarget(ctx, p, st) })
	if err != nil {
		return nil, err
	}
	if f.InternalName != "" && have[f.InternalName] != nil {
		return nil, fault.Conflict("the list already has a field %q", f.InternalName).With("field", "internalName")
	}
	return f, nil
}

// defaultName names a field created without an internal name field_<col>
// (field_<col>_<n> when a field named so before such names were reserved holds it).
func defaultName(f *field.Def, have map[string]*field.Def) {
	if f.InternalName != "" {
		return
	}
	f.InternalName = fmt.Sprintf("field_%d", f.Col)
	for i := 2; have[f.InternalName] != nil; i++ {
		f.InternalName = fmt.Sprintf("field_%d_%d", f.Col, i)
	}
}

// initialFields validates the custom fields a new list is created with and
// gives them their columns, after the system fields (sys), in input order,
// exactly as consecutive CreateField calls would: the list's item table is
// then created with every column in one CREATE TABLE instead of one ALTER
// TABLE per field (on SQLite each ALTER re-parses the whole schema, so a
// large module took minutes). An error names the field: fields[<i>].<name>.
func (s *Service) initialFields(ctx context.Context, p *auth.Principal, l *List, sys []*field.Def, ins []FieldInput) ([]*field.Def, error) {
	have := make(map[string]*field.Def, len(sys)+len(ins))
	for _, f := range sys {
		have[f.InternalName] = f
	}
	count := len(sys)
	out := make([]*field.Def, 0, len(ins))
	for i, in := range ins {
		f, err := s.newField(ctx, p, l.ID, have, count, in)
		if err != nil {
			return nil, atField(err, fmt.Sprintf("fields[%d]", i))
		}
		f.Col = l.NextCol
		l.NextCol++
		count++
		defaultName(f, have)
		have[f.InternalName] = f
		out = append(out, f)
	}
	return out, nil
}

// atField puts prefix before the field a domain error names (or names prefix).
func atField(err error, prefix string) error {
	fe, ok := fault.As(err)
	if !ok {
		return err
	}
	at := prefix
	if name, _ := fe.Details["field"].(string); name != "" {
		at += "." + name
	}
	return fe.With("field", at)
}
