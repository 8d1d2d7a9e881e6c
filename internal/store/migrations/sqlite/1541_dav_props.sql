-- WebDAV dead properties (package dav): PROPPATCH of a file, folder or
-- library root, by resource id (file guid or library id).
CREATE TABLE dav_props (
    resource_id TEXT NOT NULL,
    ns          TEXT NOT NULL,
    local       TEXT NOT NULL,
    lang        TEXT NOT NULL DEFAULT '',
    inner_xml   TEXT NOT NULL,
    PRIMARY KEY (resource_id, ns, local)
);
