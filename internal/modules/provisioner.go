package modules

import (
	"context"
	"fmt"
)

// Provisioner is built-in code a module may name in module.json
// ("provisioner"). It runs in the installation's transaction after the
// module's resources exist: on a first installation with From "" and on an
// upgrade with the version installed before. An error rolls the whole
// installation back. It returns lines for the install log.
type Provisioner func(ctx context.Context, in ProvisionInput) ([]string, error)

// ProvisionInput is what a provisioner is told.
type ProvisionInput struct {
	Module      string
	From, To    string            // From is "" on a first installation
	ResourceMap map[string]string // symbolic key -> uuid, after this installation
}

// builtinProvisioners are the provisioners of this release.
func builtinProvisioners() map[string]Provisioner {
	return map[string]Provisioner{
		// core.log records the version step in the install log; a module
		// whose upgrade needs nothing but an audit trail names it.
		"core.log": func(_ context.Context, in ProvisionInput) ([]string, error) {
			if in.From == "" {
				return []string{fmt.Sprintf("provisioner core.log: installed %s %s", in.Module, in.To)}, nil
			}
			return []string{fmt.Sprintf("provisioner core.log: upgraded %s from %s to %s", in.Module, in.From, in.To)}, nil
		},
	}
}
