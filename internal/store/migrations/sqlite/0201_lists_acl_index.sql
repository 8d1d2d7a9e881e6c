-- Item listings ask the ACL for the isolated items of a list (ChildExceptions:
-- children with inherits = false). With (parent_id, type) alone that walks
-- every item of the list; with inherits in the key it reads only the few
-- isolated ones. Added by the lists capability; the table belongs to access.
CREATE INDEX acl_objects_parent_inherits ON acl_objects(parent_id, type, inherits);
