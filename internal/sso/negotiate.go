package sso

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
)

// ctxCredentials is the key under which gokrb5 puts the client's credentials.
const ctxCredentials = "github.com/jcmturner/gokrb5/v8/ctxCredentials"

// Kerberos accepts SPNEGO (Kerberos 5 only: no NTLM) tickets for the
// service principal of a keytab.
type Kerberos struct {
	kt    *keytab.Keytab
	spn   string
	realm string
	skew  time.Duration
}

// LoadKerberos reads the keytab at path. spn is the service principal
// (HTTP/host); empty = the first principal of the keytab. skew is the
// allowed clock difference (0 = 5 minutes, the Kerberos default).
func LoadKerberos(path, spn string, skew time.Duration) (*Kerberos, error) {
	kt, err := keytab.Load(path)
	if err != nil {
		return nil, fmt.Errorf("CORE_KERBEROS_KEYTAB: read keytab %s: %w", path, err)
	}
	if len(kt.Entries) == 0 {
		return nil, fmt.Errorf("CORE_KERBEROS_KEYTAB: keytab %s holds no key", path)
	}
	first := kt.Entries[0].Principal
	realm := first.Realm
	if spn == "" {
		spn = strings.Join(first.Components, "/")
	} else if at := strings.LastIndexByte(spn, '@'); at >= 0 {
		spn, realm = spn[:at], spn[at+1:]
	}
	if !strings.HasPrefix(spn, "HTTP/") {
		return nil, fmt.Errorf("CORE_KERBEROS_SPN: %q is not an HTTP/<host> service principal", spn)
	}
	if skew <= 0 {
		skew = 5 * time.Minute
	}
	return &Kerberos{kt: kt, spn: spn, realm: realm, skew: skew}, nil
}

// SPN is the service principal the keytab answers for.
func (k *Kerberos) SPN() string { return k.spn }

// accept verifies the token of an "Authorization: Negotiate" header and
// returns the client principal (user@REALM).
func (k *Kerberos) accept(ctx context.Context, header string) (user, realm string, err error) {
	scheme, b64, _ := strings.Cut(strings.TrimSpace(header), " ")
	if !strings.EqualFold(scheme, "Negotiate") || strings.TrimSpace(b64) == "" {
		return "", "", errNegotiate
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return "", "", errNegotiate
	}
	if len(raw) >= 7 && string(raw[:7]) == "NTLMSSP" {
		slog.InfoContext(ctx, "Negotiate sign-in refused: NTLM is not offered")
		return "", "", errNegotiate
	}
	var tok spnego.SPNEGOToken
	if err := tok.Unmarshal(raw); err != nil {
		slog.InfoContext(ctx, "Negotiate sign-in refused: not an SPNEGO token", "err", err)
		return "", "", errNegotiate
	}
	s := spnego.SPNEGOService(k.kt, service.KeytabPrincipal(k.spn), service.DecodePAC(false), service.MaxClockSkew(k.skew))
	ok, gctx, st := s.AcceptSecContext(&tok)
	if !ok || st.Code != gssapi.StatusComplete {
		slog.InfoContext(ctx, "Negotiate sign-in refused", "status", st.Message)
		return "", "", errNegotiate
	}
	id, _ := gctx.Value(ctxCredentials).(*credentials.Credentials)
	if id == nil || !id.Authenticated() {
		return "", "", errNegotiate
	}
	return id.UserName(), id.Domain(), nil
}

var errNegotiate = fault.Unauthorized("Kerberos sign-in failed: send a Kerberos ticket for the portal's service principal (Authorization: Negotiate)")

// Negotiate signs in with a SPNEGO token: the principal user@REALM of the
// keytab's realm is the domain user whose login is user.
func (s *Service) Negotiate(ctx context.Context, header, address string) (auth.Session, error) {
	k := s.kerberos
	if k == nil {
		return auth.Session{}, fault.NotFound("route")
	}
	user, realm, err := k.accept(ctx, header)
	if err != nil {
		return auth.Session{}, err
	}
	if k.realm != "" && !strings.EqualFold(realm, k.realm) {
		slog.InfoContext(ctx, "Negotiate sign-in refused: principal of another realm", "realm", realm)
		return auth.Session{}, errNegotiate
	}
	acc, err := s.users.AccountByLogin(ctx, user)
	if fault.Is(err, fault.CodeNotFound) || (err == nil && acc.AuthSource != "domain") {
		slog.InfoContext(ctx, "Negotiate sign-in refused: no domain user for the principal", "principal", user+"@"+realm)
		return auth.Session{}, fault.Unauthorized("no directory user for this Kerberos principal")
	}
	if err != nil {
		return auth.Session{}, err
	}
	return s.auth.StartSession(ctx, acc, "kerberos", address)
}
