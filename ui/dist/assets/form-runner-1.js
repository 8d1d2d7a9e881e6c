// (The file name carries a version: /assets/ files are served as immutable;
// change the number when the runner changes.)
// Runs a list form's script (formConfig.<form>.script) for the console. The
// page is framed with sandbox="allow-scripts" (an opaque origin: no API calls
// with the session, no access to the console) and served with its own CSP.
// The script sees one object, `form`; everything it does is a message to the
// console (see ui/FORM-SCRIPTS.md).
(function () {
  'use strict';
  var parentWin = window.parent;
  var state = { values: {}, fields: [], mode: 'view' };
  var changeHandlers = [];
  var saveHandlers = [];

  function post(msg) { parentWin.postMessage(Object.assign({ source: 'core-form-script' }, msg), '*'); }
  function key(name) {
    for (var i = 0; i < state.fields.length; i++) {
      var f = state.fields[i];
      if (f.id === name || f.internalName === name) return f.id;
    }
    return String(name);
  }

  var form = {
    get mode() { return state.mode; },
    get fields() { return state.fields.slice(); },
    get values() { return Object.assign({}, state.values); },
    get: function (name) { return state.values[key(name)]; },
    set: function (name, value) { var k = key(name); state.values[k] = value; post({ type: 'set', field: k, value: value }); },
    lock: function (name, locked) { post({ type: 'lock', field: key(name), locked: locked !== false }); },
    hide: function (name, hidden) { post({ type: 'hide', field: key(name), hidden: hidden !== false }); },
    message: function (text, level) { post({ type: 'message', text: String(text), level: level || 'info' }); },
    onChange: function (fn) { if (typeof fn === 'function') changeHandlers.push(fn); },
    onBeforeSave: function (fn) { if (typeof fn === 'function') saveHandlers.push(fn); },
  };

  function fail(err) { post({ type: 'error', text: String(err && err.message ? err.message : err) }); }

  async function beforeSave(id, values) {
    state.values = values;
    try {
      for (var i = 0; i < saveHandlers.length; i++) {
        var r = await saveHandlers[i](Object.assign({}, values));
        if (typeof r === 'string' && r.trim() !== '') return post({ type: 'saveResult', id: id, veto: r });
        if (r === false) return post({ type: 'saveResult', id: id, veto: '' });
      }
      post({ type: 'saveResult', id: id, veto: null });
    } catch (err) {
      fail(err);
      post({ type: 'saveResult', id: id, veto: null });
    }
  }

  window.addEventListener('message', function (e) {
    if (e.source !== parentWin || !e.data || typeof e.data !== 'object') return;
    var m = e.data;
    if (m.type === 'init') {
      state = { values: m.values || {}, fields: m.fields || [], mode: m.mode || 'view' };
      try {
        // The administrator's script: eval is allowed on this page only.
        new Function('form', String(m.script || ''))(form);
      } catch (err) {
        fail(err);
      }
      post({ type: 'ready' });
    } else if (m.type === 'change') {
      state.values = m.values || state.values;
      for (var i = 0; i < changeHandlers.length; i++) {
        try { changeHandlers[i](m.field, m.value, Object.assign({}, state.values)); } catch (err) { fail(err); }
      }
    } else if (m.type === 'beforeSave') {
      void beforeSave(m.id, m.values || {});
    }
  });
  post({ type: 'loaded' });
})();
