package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/applog"
	"coreportal/internal/auth"
	"coreportal/internal/backup"
	"coreportal/internal/blob"
	"coreportal/internal/bus"
	"coreportal/internal/config"
	"coreportal/internal/console"
	"coreportal/internal/directory"
	"coreportal/internal/idempotency"
	"coreportal/internal/libraries"
	"coreportal/internal/licence"
	"coreportal/internal/lists"
	"coreportal/internal/modules"
	"coreportal/internal/nodes"
	"coreportal/internal/pages"
	"coreportal/internal/preview"
	"coreportal/internal/privfs"
	"coreportal/internal/release"
	"coreportal/internal/search"
	"coreportal/internal/servicetokens"
	"coreportal/internal/settings"
	"coreportal/internal/sso"
	"coreportal/internal/store"
	"coreportal/internal/surveys"
	"coreportal/internal/system"
	"coreportal/internal/users"
	"coreportal/internal/web"
	"coreportal/internal/wopi"
)

// app is the wired service: everything serve, api and worker need.
type app struct {
	cfg      config.Config
	db       *store.DB
	bus      bus.Bus
	platform // jobs, services, mail, events, live (platform.go)
	idem     *idempotency.Keys
	settings *settings.Store
	licence  *licence.Service
	release  *release.Service
	users    *users.Service
	auth     *auth.Service
	acl      *acl.Engine
	nodes    *nodes.Service
	access   access
	lists    *lists.Service
	surveys  *surveys.Service
	pages    *pages.Service
	modules  *modules.Service
	blobs    blob.Store
	admin    adminParts // audit, application log, dashboard, backups (serve_admin.go)
	// backupKey is CORE_BACKUP_KEY (nil when not set)
	backupKey *backup.Key

	// directory: LDAP settings, search, domain sign-in, ad-sync (serve_directory.go)
	directory *directory.Service
	sso       *sso.Service

	// document libraries (serve_libraries.go)
	libraries *libraries.Service
	// previews of library files (serve_previews.go)
	previews *preview.Renderer
	// WOPI host of the Office editor (serve_office.go)
	office *wopi.Service

	// search index (serve_search.go)
	search *search.Service

	// service accounts and their API tokens (serve_integrations.go)
	serviceTokens *servicetokens.Service

	// loops run in every process (cache listeners, refreshers)
	loops []func(context.Context)
	// workers run only in processes that do background work (serve, worker)
	workers []func(context.Context)
}

func openStore(ctx context.Context, cfg config.Config) (*store.DB, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL, cfg.SQLitePath())
	if err != nil {
		return nil, err
	}
	// the SQL files of the dialect and the item-table step of lists, in number order
	if err := db.Migrate(ctx, slog.Default(), lists.MigrationSteps()...); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func openBus(cfg config.Config) (bus.Bus, error) {
	if cfg.BusURL == "" {
		return bus.NewMemory(), nil
	}
	return bus.NewRedis(cfg.BusURL)
}

func build(ctx context.Context, cfg config.Config) (*app, error) {
	return buildApp(ctx, cfg, true)
}

// buildApp wires the service; bootstrap creates the bootstrap administrator
// of an empty database (coreportal restore does not: the archive brings its
// accounts).
func buildApp(ctx context.Context, cfg config.Config, bootstrap bool) (*app, error) {
	key, err := backup.NewKey(cfg.BackupKey)
	if err != nil {
		return nil, err
	}
	// the data folder holds the database, blobs, licence and backups: 0700
	if err := privfs.MkdirAll(cfg.DataDir); err != nil {
		return nil, err
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, db: db, settings: settings.New(db), backupKey: key}
	a.buildAdmin()
	if a.bus, err = openBus(cfg); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := a.settings.Init(ctx, "install_id", uuid.NewString); err != nil {
		return nil, err
	}
	secret := cfg.JWTSecret
	if secret == "" {
		if secret, err = a.settings.Init(ctx, "jwt_secret", func() string { return auth.RandomPassword() + auth.RandomPassword() }); err != nil {
			return nil, err
		}
	}
	tokens, err := auth.NewTokens([]byte(secret), cfg.TokenTTL)
	if err != nil {
		return nil, err
	}
	a.users = users.NewService(db, a.bus)
	a.auth = auth.NewService(a.users, tokens, db, a.bus)
	a.auth.SetTrustedProxies(cfg.TrustedProxies)
	a.auth.SetPublicHTTPS(cfg.PublicHTTPS())
	if err := a.auth.Revocations().Load(ctx); err != nil {
		return nil, err
	}
	if bootstrap {
		if err := a.bootstrap(ctx); err != nil {
			return nil, err
		}
	}
	if err := a.buildLicence(ctx); err != nil {
		return nil, err
	}
	a.buildPlatform()
	a.jobs.Paused = a.jobsPaused
	a.configureSessions()
	a.connect()
	a.loops = append(a.loops, a.users.Listen, a.auth.Revocations().Run)
	a.buildIdempotency()
	a.buildAccess()
	if err := a.openBlobs(ctx); err != nil {
		return nil, err
	}
	if err := a.buildLists(); err != nil {
		return nil, err
	}
	if err := a.buildDirectory(ctx); err != nil {
		return nil, err
	}
	if err := a.buildSSO(secret); err != nil {
		return nil, err
	}
	a.buildLibraries()
	if err := a.buildSurveys(ctx); err != nil {
		return nil, err
	}
	a.buildPages()
	if err := a.buildModules(); err != nil {
		return nil, err
	}
	a.buildSearch()
	a.buildPreviews()
	if err := a.buildOffice(ctx); err != nil {
		return nil, err
	}
	a.buildDashboard()
	return a, nil
}

// bootstrap creates the bootstrap administrator of an empty database.
func (a *app) bootstrap(ctx context.Context) error {
	login := a.cfg.SeedAdminLogin
	generated, err := a.users.Bootstrap(ctx, login, a.cfg.SeedAdminPassword)
	if err != nil || generated == "" {
		return err
	}
	path, err := writeBootstrapPassword(a.cfg.DataDir, generated)
	if err != nil {
		return fmt.Errorf("%w (the administrator %q exists: give it a password with coreportal user set-password --login %s)", err, login, login)
	}
	slog.Warn("bootstrap administrator created with a generated password, written to a file readable by this account only; sign in, change the password and delete the file",
		"login", login, "file", path)
	return nil
}

func (a *app) close() {
	if a.bus != nil {
		a.bus.Close()
	}
	a.db.Close()
}

// routes builds the HTTP handler of the API and the web console.
func (a *app) routes() (http.Handler, error) {
	mux := http.NewServeMux()
	api := web.NewAPI(mux, buildVersion())
	api.UseMiddleware(auth.Policy(api))
	idempotency.Document(api.OpenAPI())
	a.registerPlatform(api)
	a.registerRelease(api)

	sys := system.NewHandler(a.db, buildVersion(), a.db.Dialect.String())
	sys.SetInfo(a.monitorInfo)
	mux.HandleFunc("GET /health", sys.Health)
	a.mountReady(mux)
	listsHTTP := lists.NewHandler(a.lists)
	a.mountLists(mux, listsHTTP)
	a.mountLibraries(mux, api)
	a.mountDAV(mux, api)
	a.mountOffice(mux, api)
	a.mountSurveys(api, mux)
	a.mountModules(api, mux)
	for _, r := range []interface{ Register(huma.API) }{
		sys,
		auth.NewHandler(a.auth, func(ctx context.Context, id string) (any, error) { return a.users.Card(ctx, id) }),
		users.NewHandler(a.users),
		users.NewSelfHandler(a.users, a.auth),
		listsHTTP,
		directory.NewHandler(a.directory),
		a.ssoHandler(),
		a.pagesHandler(),
		a.searchHandler(),
		servicetokens.NewHandler(a.serviceTokens),
	} {
		r.Register(api)
	}
	for _, r := range append(a.accessHandlers(), a.adminHandlers()...) {
		r.Register(api)
	}
	mux.HandleFunc("/", web.NotFound)
	con, err := console.New(consoleBuild())
	if err != nil {
		return nil, err
	}
	con.Mount(mux)

	return web.Chain(web.CaptureRoute(mux),
		web.RequestID,
		web.CORS(a.cfg.Integrations.CORSOrigins),
		a.observeRoutes(),
		web.SecurityHeaders,
		web.Compress(), web.ETag,
		web.BodyDeadline(web.BodyLimits{Grace: a.cfg.BodyGrace, MinRate: a.cfg.BodyMinRate}),
		web.Sanitize,
		release.RunnerGate(a.cfg.UpdateRunnerToken),
		web.AccessLog(a.cfg.AccessLog, nil, a.auth.ClientAddress),
		a.auth.Middleware,
		a.serviceTokens.Middleware,
		noteUser,
		a.licenceWarning,
		a.readOnlyGate,
		a.maintenanceGate(),
		a.idem.Middleware,
	), nil
}

func serve(ctx context.Context, cfg config.Config, withAPI, withWorker bool) error {
	a, err := build(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.close()

	loopCtx, stopLoops := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	for _, loop := range a.loops {
		wg.Add(1)
		go func() { defer wg.Done(); loop(loopCtx) }()
	}
	if withWorker {
		workCtx := applog.WithProcess(loopCtx, "worker")
		for _, loop := range a.workers {
			wg.Add(1)
			go func() { defer wg.Done(); loop(workCtx) }()
		}
	}
	defer func() { stopLoops(); wg.Wait() }()

	if withWorker && !withAPI {
		slog.Info("worker started")
		<-ctx.Done()
		slog.Info("worker stopping")
		return nil
	}

	startPprof(cfg.PprofAddr)
	handler, err := a.routes()
	if err != nil {
		return err
	}
	srv := &http.Server{
		Addr:    cfg.Addr,
		Handler: handler,
		// No ReadTimeout or WriteTimeout: bodies are paced by web.BodyDeadline,
		// and long requests and SSE streams must not be cut.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       cfg.IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	srv.RegisterOnShutdown(a.live.CloseStreams) // SSE streams never become idle
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	slog.Info("listening", "addr", ln.Addr().String(), "database", a.db.Dialect.String(), "version", buildVersion(), "worker", withWorker)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	slog.Info("shutting down: finishing in-flight requests")
	shutCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	slog.Info("stopped")
	return nil
}
