package backup

import (
	"strings"
)

// RestoreOptions of one restore.
type RestoreOptions struct {
	// AcceptUnverified restores an archive whose manifest signature cannot
	// be checked (no CORE_BACKUP_KEY, an unsigned archive, another key):
	// its data as it is, none of its secrets.
	AcceptUnverified bool
}

// RestoreReport says what a restore brought back.
type RestoreReport struct {
	Manifest *Manifest
	// Verified: the manifest signature matched CORE_BACKUP_KEY.
	Verified bool
	// Unverified is why it could not be checked (empty when Verified).
	Unverified string
	// SecretsRestored and SecretsNotRestored name the secrets (settings.<key>,
	// services.<service>.<field>, users.password_hash).
	SecretsRestored    []string
	SecretsNotRestored []string
	// Notes say what became of each secret not restored and what to do.
	Notes []string
	// Administrators are the logins of the administrators the archive brings.
	Administrators []string
}

func newReport(c *Checked) *RestoreReport {
	r := &RestoreReport{Manifest: c.Manifest, Verified: c.Verified, Unverified: c.Why,
		SecretsRestored: []string{}, SecretsNotRestored: c.NotRestored}
	if r.SecretsNotRestored == nil {
		r.SecretsNotRestored = []string{}
	}
	if c.secrets != nil {
		r.SecretsRestored = c.secrets.names()
	}
	for _, n := range r.SecretsNotRestored {
		r.Notes = append(r.Notes, n+": "+consequence(n))
	}
	return r
}

// consequence is what a restore without the secret n leaves and what the
// operator does about it.
func consequence(n string) string {
	switch {
	case n == "settings.jwt_secret":
		return "a new JWT signing secret was generated: every session ends once the API instances restart"
	case n == "settings.surveys_respondent_secret":
		return "a new survey respondent secret was generated: earlier answers are no longer recognised as their users', who may answer open surveys again"
	case strings.HasPrefix(n, "settings."):
		return "a new random value was generated"
	case n == "services.notifications.password":
		return "the SMTP password is empty: enter it again in PUT /admin/settings/smtp"
	case n == "services.ad-sync.bindPassword":
		return "the LDAP bind password is empty: enter it again in PUT /admin/settings/ldap"
	case strings.HasPrefix(n, "services."):
		return "left empty: enter it again in the service's settings"
	case n == SecretPasswordHashes:
		return "local accounts have no password: nobody signs in with a password until one is set (coreportal user set-password --login LOGIN, or by an administrator)"
	}
	return "not restored"
}

// details adds the report to a journal record's details.
func (r *RestoreReport) details(d map[string]any) {
	d["verified"] = r.Verified
	if !r.Verified {
		d["unverified"] = r.Unverified
	}
	d["secretsRestored"] = r.SecretsRestored
	d["secretsNotRestored"] = r.SecretsNotRestored
	if len(r.Notes) > 0 {
		d["notes"] = r.Notes
	}
	d["administrators"] = r.Administrators
}
