package servicetokens

import (
	"context"
	"coreportal/internal/idempotency"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Handler serves /admin/service-accounts.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

const tokenDoc = ` Service tokens are used as "Authorization: Bearer cpst_…" (never as the cookie). Every request checks the token in
the database: a revoked or expired token, or a deactivated account, answers 401 at once on every instance. A token of scope
read may only GET and HEAD; any other method answers 403 FORBIDDEN. The account acts with its own permissions (grant them
like a user's; isCoreAdmin makes it an administrator). The audit log records serviceToken.use (resourceId the token id,
actor the account, details method, path, status) for every write and at most once a minute per token and instance for reads;
the changes themselves are audited under the account as actor.`

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	create := web.Op(http.MethodPost, "/admin/service-accounts", "createServiceAccount", "Create a service account", web.Admin, "admin-service-accounts")
	create.Description += ` A service account is a local user (listed in /admin/users) without a usable password, for
integrations; it signs in only with its tokens. 409 CONFLICT when the login is taken.` + tokenDoc
	web.Register(api, web.Answers(create, http.StatusCreated, http.StatusConflict), h.create)
	web.Register(api, web.Op(http.MethodGet, "/admin/service-accounts", "listServiceAccounts", "List service accounts with their tokens", web.Admin, "admin-service-accounts"), h.list)
	tok := web.Op(http.MethodPost, "/admin/service-accounts/{id}/tokens", "createServiceToken", "Issue a token for a service account", web.Admin, "admin-service-accounts")
	tok.Description += ` The answer's data.token is the only time the token is shown; it is stored as its SHA-256.` + tokenDoc
	web.Register(api, web.Answers(tok, http.StatusCreated), h.createToken)
	web.Register(api, web.Op(http.MethodGet, "/admin/service-accounts/{id}/tokens", "listServiceTokens", "Tokens of a service account (never the secrets)", web.Admin, "admin-service-accounts"), h.tokens)
	rev := web.Op(http.MethodDelete, "/admin/service-accounts/{id}/tokens/{tokenId}", "revokeServiceToken", "Revoke a service token", web.Admin, "admin-service-accounts")
	rev.Description += ` The token stops working at once; its record stays listed with revokedAt.`
	web.Register(api, rev, h.revoke)
}

type createIn struct{ Body NewAccount }

func (h *Handler) create(ctx context.Context, in *createIn) (*web.Out[*Account], error) {
	return web.ReplyCreated(h.svc.CreateAccount(ctx, in.Body))
}

func (h *Handler) list(ctx context.Context, _ *struct{}) (*web.Out[[]*Account], error) {
	return web.Reply(h.svc.Accounts(ctx))
}

type idIn struct {
	ID string `path:"id" doc:"service account (user) id"`
}

type tokenIn struct {
	ID   string `path:"id" doc:"service account (user) id"`
	Body TokenRequest
}

func (h *Handler) createToken(ctx context.Context, in *tokenIn) (*web.Out[*NewToken], error) {
	idempotency.WithholdAnswer(ctx) // the answer holds the token: never kept for a retry
	return web.ReplyCreated(h.svc.CreateToken(ctx, in.ID, in.Body))
}

func (h *Handler) tokens(ctx context.Context, in *idIn) (*web.Out[[]Token], error) {
	return web.Reply(h.svc.Tokens(ctx, in.ID))
}

type revokeIn struct {
	ID      string `path:"id" doc:"service account (user) id"`
	TokenID string `path:"tokenId" doc:"token id"`
}

func (h *Handler) revoke(ctx context.Context, in *revokeIn) (*web.Out[any], error) {
	if err := h.svc.Revoke(ctx, in.ID, in.TokenID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
