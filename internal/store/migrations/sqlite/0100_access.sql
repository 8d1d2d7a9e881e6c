-- Access: groups, the ACL registry and records, nodes, menus, recycle bin.

CREATE TABLE groups (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    group_type  TEXT NOT NULL DEFAULT 'portal',
    external_id TEXT,
    search_text TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX groups_external_id ON groups(external_id) WHERE external_id IS NOT NULL;

CREATE TABLE group_members (
    group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
    user_id  TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    added_at TIMESTAMP NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members_user ON group_members(user_id, group_id);

-- Every securable resource with its parent: one recursive walk gives the chain.
CREATE TABLE acl_objects (
    id        TEXT PRIMARY KEY,
    type      TEXT NOT NULL,
    parent_id TEXT,
    inherits  BOOLEAN NOT NULL DEFAULT 1
);
CREATE INDEX acl_objects_parent ON acl_objects(parent_id, type);

CREATE TABLE acl_entries (
    id             TEXT PRIMARY KEY,
    resource_type  TEXT NOT NULL,
    resource_id    TEXT NOT NULL,
    principal_type TEXT NOT NULL,
    principal_id   TEXT NOT NULL,
    level          INTEGER NOT NULL,
    created_at     TIMESTAMP NOT NULL,
    UNIQUE (resource_id, principal_type, principal_id)
);
CREATE INDEX acl_entries_principal ON acl_entries(principal_id);

CREATE TABLE nodes (
    id          TEXT PRIMARY KEY,
    parent_id   TEXT REFERENCES nodes(id),
    slug        TEXT NOT NULL,
    title       TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    sort_order  INTEGER NOT NULL DEFAULT 0,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX nodes_sibling_slug ON nodes(COALESCE(parent_id, ''), slug);
CREATE INDEX nodes_parent ON nodes(parent_id);

CREATE TABLE menu_settings (
    node_id        TEXT PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,
    inherit_parent BOOLEAN NOT NULL DEFAULT 1,
    updated_at     TIMESTAMP NOT NULL
);

CREATE TABLE menu_items (
    id             TEXT PRIMARY KEY,
    node_id        TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    parent_item_id TEXT REFERENCES menu_items(id) ON DELETE CASCADE,
    title          TEXT NOT NULL,
    link           TEXT NOT NULL DEFAULT '',
    resource_type  TEXT,
    resource_id    TEXT,
    open_in_new_tab BOOLEAN NOT NULL DEFAULT 0,
    sort_order     INTEGER NOT NULL DEFAULT 0,
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL
);
CREATE INDEX menu_items_node ON menu_items(node_id, parent_item_id, sort_order);

CREATE TABLE recycle_bin (
    id         TEXT PRIMARY KEY,
    node_id    TEXT NOT NULL,
    kind       TEXT NOT NULL,
    scope_id   TEXT NOT NULL DEFAULT '',
    title      TEXT NOT NULL DEFAULT '',
    deleted_by TEXT,
    deleted_at TIMESTAMP NOT NULL,
    payload    TEXT NOT NULL
);
CREATE INDEX recycle_bin_node ON recycle_bin(node_id, deleted_at);
CREATE INDEX recycle_bin_scope ON recycle_bin(kind, scope_id);
CREATE INDEX recycle_bin_age ON recycle_bin(deleted_at);
