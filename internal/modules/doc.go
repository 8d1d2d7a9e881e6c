package modules

// installDoc describes POST /modules/install; its package part and its
// installDependencies parameter are described by packageDoc and depsDoc.
const installDoc = ` Installs a module package and what it requires: its resources are created through the same services as the REST API.

Refused with 400 VALIDATION_ERROR and nothing changed: a body that is not multipart or lacks the part (or has two), a file that is
not a ZIP, no module.json in the root, entry names with .., a leading / or drive letter, a backslash, control characters or an
empty element, a name given twice (case-insensitive), more than 2000 entries or more than 200 MB once unpacked (every entry is
inflated once through a size limit, so declared sizes are not trusted; an entry whose size or checksum does not match its header
is a corrupt archive), text with NUL or invalid UTF-8 in module.json (the rule of every JSON body), an invalid module.json (details.field names the place, e.g.
resources[2].node.$ref), an older version than the installed one (rollback is not supported). A vendor module (key vendor.*)
answers 403 FORBIDDEN: vendor product modules are installed only from the vendor catalog of the release with
POST /modules/install-template and a licence entitlement.

Outcome: the dependencies and the module are installed in ONE transaction (a failure half-way, e.g. a slug already taken,
leaves nothing behind; concurrent installations are serialised, so a module is never created twice). Same version installed:
200 with skipped=true and nothing created. Newer version: 200 with upgraded=true and fromVersion; resources whose keys the record
holds are kept as they are, new keys (and new list fields and keyed views) are created, keys the new version no longer declares
are left in place; the provisioner, if any, runs with the from-version (on a first installation with none). New module: 201.
Answer: { moduleKey, version, skipped, upgraded, fromVersion, resourceMap, log[], dependenciesInstalled[{ moduleKey, version,
fromVersion, source }] }. Audit: module.install, module.upgrade or module.skip per module (a refused installation is recorded
as module.install with outcome failure).`

// packageDoc describes the package part of POST /modules/install: the
// archive and its module.json.
const packageDoc = `The .coremod file: a ZIP archive with module.json in its root, at most 50 MB (streamed to a temporary file; a larger
package answers 400 VALIDATION_ERROR, not 413). The body must be multipart/form-data with exactly one part named package.

module.json:
{ "id": "acme.tasks",                      module key: dotted lower-case words, at most 100 characters
  "version": "1.2.0",                      semantic version MAJOR.MINOR.PATCH[-pre][+build]
  "title": "Tasks", "description": "...",
  "requires": ["acme.base@>=1.0.0"],       <key>, <key>@<op><version> with op >=, >, =, <=, < (a bare version means =)
  "provisioner": "core.log",               optional built-in provisioner (core.log: writes the version step to the install log)
  "resources": [                           created in reference order through the same services as the REST API
    { "key": "nodes.tasks", "type": "node", "title": "Tasks", "slug": "tasks", "description": "", "sortOrder": 0,
      "parent": { "$ref": "modules.acme.base.nodes.home" } },                  parent absent = a root node
    { "key": "lists.tasks", "type": "list", "node": { "$ref": "nodes.tasks" }, "title": "Tasks", "slug": "tasks",
      "fields": [ { "internalName": "due", "title": "Due", "fieldType": "date", "isRequired": false, "settings": {} } ],
      "views":  [ { "key": "open", "title": "Open", "isDefault": false, "config": { "columns": ["title", "due"] } } ] },
    { "key": "libraries.docs", "type": "library", "node": { "$ref": "nodes.tasks" }, "title": "Documents", "slug": "documents" },
    { "key": "pages.help", "type": "page", "node": { "$ref": "nodes.tasks" }, "title": "Help", "slug": "help", "content": "<p>…</p>" },
    { "key": "groups.leads", "type": "group", "name": "Task leads", "description": "" },
    { "key": "menu.tasks", "type": "menuItem", "node": { "$ref": "nodes.tasks" }, "title": "Tasks", "link": "/tasks/lists/tasks",
      "openInNewTab": false } ] }
A menuItem is added to the node's menu as POST /nodes/{id}/menu/items does: a slug path (/<node path>/lists/<slug>, …/libraries/…,
…/pages/…) of a resource created before it is bound to that resource and follows its renames.
Unknown attributes, unknown types, duplicate keys, a $ref to a key that does not exist or is not a node, a $ref cycle, a
modules.<key>.<path> reference to a module not in requires, and bad slugs are refused before anything is written.
Fields and views take what POST /lists/{id}/fields and POST /lists/{id}/views take (view columns may name fields by internalName).
Limits (400 before anything is written): 200 resources, 100 fields and 20 views per list, 5000 fields and 400 views in all lists
of the package, and at most 100 fields added to lists that exist already (an upgrade) or after a field that looks up its own
list: a new list's other fields are created with its item table at once, those fields one schema change each, which on SQLite
holds the portal's only writer (split a larger package into modules that require each other, or a growth over several versions).
In a lookup field's settings, lookupListId, lookupLibraryId, lookupNodeId and lookupFieldId may be { "$ref": ... } naming a list,
library or node of the module or of a required module, and for lookupFieldId "<list key>.fields.<internalName>"; the target is
created first (a list may look itself up; two lists that look each other up are a cycle and are refused).`

// depsDoc describes the installDependencies parameter.
const depsDoc = `true (default, also 1) installs what requires needs; false (or 0) installs only this package; anything else is 400.
Dependencies: each requires entry not satisfied by an installed module is looked up, newest allowed version first, in the deps/
folder of the archive (deps/<name>.coremod packages, which may not carry deps/ themselves), then the local catalog
(MODULE_CATALOG_PATH: catalog.json { "modules": [ { id, version, title, package, isFree } ] } and the packages beside it), then
the remote catalog (MODULE_CATALOG_URL: <url>/catalog.json, or the URL itself when it ends in .json; packages relative to it;
15 s timeout, 1 MB catalog and 50 MB package limits). Vendor modules are looked up in the embedded vendor catalog, then
in local and remote catalog entries that carry sha256 (hex) and signature (hex Ed25519 by the vendor key of release packages,
CORE_UPDATE_PUBLIC_KEY, over "coreportal-module\n<id>\n<version>\n<sha256>\n<free|paid>\n"); an unsigned or mis-signed vendor
entry is ignored, and vendor.* packages in deps/ never count.
Requirements that cannot be met (not found, installDependencies=false, an installed version that does not satisfy and cannot
be upgraded) answer 409 CONFLICT before anything is written, with details.missing (the requirements as written, e.g.
"acme.base@>=1.0.0") and details.unsatisfied [{ requirement, requiredBy, installed, reason }]. Installing a version that an installed
module's requires exclude (acme.app requires acme.lib@<2.0.0, acme.lib 2.0.0 uploaded) answers 409 CONFLICT with
details.dependents ["acme.app requires acme.lib@<2.0.0"], unless the same installation upgrades that module too. Resources of a required module are
referenced as modules.<key>.<resource key>. An upgrade that builds on a resource installed earlier but deleted since (a kept list
whose fields it extends, a $ref target of a required module) answers 409 CONFLICT with details.field naming the place
(resources[2]) and nothing changed: restore the resource from its recycle bin and install again.`
