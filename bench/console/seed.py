"""Seeds the console benchmark: a node with a list of a few typed fields and 500
items; prints the list's canonical path."""
import json, os, urllib.request

base, token = os.environ['BASE'], os.environ['TOKEN']

def call(method, path, body=None):
    req = urllib.request.Request(base + '/api/v1' + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json'})
    with urllib.request.urlopen(req) as r:
        return json.load(r).get('data')

node_id = call('POST', '/nodes', {'title': 'Bench', 'slug': 'bench'})['id']
lst = call('POST', '/lists', {'nodeId': node_id, 'title': 'Bench grid', 'slug': 'bench-grid'})
call('POST', f"/lists/{lst['id']}/fields", {'title': 'Amount', 'internalName': 'amount', 'fieldType': 'number'})
call('POST', f"/lists/{lst['id']}/fields", {'title': 'Status', 'internalName': 'status', 'fieldType': 'choice',
                                             'settings': {'choices': ['New', 'Open', 'Done']}})
for i in range(0, 500, 100):
    rows = [{'clientRowId': str(n), 'fieldValues': {'title': f'Row {n}', 'amount': n,
                                                     'status': ['New', 'Open', 'Done'][n % 3]}}
            for n in range(i, i + 100)]
    call('POST', f"/lists/{lst['id']}/items/quick-edit", {'creates': rows})
print(call('GET', f"/routes/canonical?type=list&nodeId={node_id}&resourceId={lst['id']}")['path'])
