// Renders /api/v1/openapi.json with Scalar, offline: no fonts, proxy,
// telemetry, agent or MCP integration reach another host (the page's CSP
// refuses them anyway). "Test request" sends to this server; the bearer
// token entered under Authentication is kept in this browser's storage.
Scalar.createApiReference('#reference', {
  url: '/api/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: true,
  persistAuth: true,
  documentDownloadType: 'both',
  authentication: { preferredSecurityScheme: 'bearer' },
  servers: [{ url: window.location.origin, description: 'this server' }],
  metaData: { title: 'Core Portal API reference' },
});
