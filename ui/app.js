// Minimal login UI: plain DOM, no inline script (the CSP forbids it).
(function () {
  'use strict';
  var app = document.getElementById('app');
  var params = new URLSearchParams(location.search);
  var redirectUri = params.get('redirect_uri') || '';

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { node.appendChild(c); });
    return node;
  }
  function render(title, children) {
    app.replaceChildren(el('h1', { text: title }));
    children.forEach(function (c) { app.appendChild(c); });
    var first = app.querySelector('input, button, a');
    if (first) first.focus();
  }
  function api(path, body) {
    return fetch(path, {
      method: body ? 'POST' : 'GET',
      headers: body ? { 'Content-Type': 'application/json', Accept: 'application/json' } : { Accept: 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
      credentials: 'same-origin',
    }).then(function (r) { return r.json(); });
  }
  function withRedirect(path) {
    return redirectUri ? path + '?redirect_uri=' + encodeURIComponent(redirectUri) : path;
  }
  function safeTarget(ctx, raw) {
    try {
      var u = new URL(raw);
      var host = u.hostname.toLowerCase();
      var d = ctx.domain;
      if ((u.protocol === 'http:' || u.protocol === 'https:') && !u.username && (host === d || host.endsWith('.' + d))) return u.toString();
    } catch (e) { /* not a URL */ }
    return null;
  }
  function go(path) { location.assign(path); }

  function loginPage(ctx) {
    var msg = el('p', { class: 'error', role: 'alert' });
    var form = el('form', { novalidate: '' }, [
      el('label', { for: 'email', text: 'Username or e-mail' }),
      el('input', { id: 'email', name: 'email', autocomplete: 'username', required: '' }),
      el('label', { for: 'password', text: 'Password' }),
      el('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: '' }),
      el('button', { type: 'submit', text: 'Log in' }),
    ]);
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      msg.textContent = '';
      api('/api/login', { email: form.email.value, password: form.password.value }).then(function (r) {
        if (r.status === 200) go(withRedirect(r.totpPending === 'true' ? '/totp' : '/continue'));
        else msg.textContent = r.status === 401 ? 'Wrong username or password.' : r.message;
      });
    });
    render(ctx.title, [form, msg, el('p', {}, [el('a', { href: '/forgot-password', text: 'Forgot your password?' })])]);
  }
  function totpPage(ctx) {
    var msg = el('p', { class: 'error', role: 'alert' });
    var form = el('form', {}, [
      el('label', { for: 'code', text: 'One-time code' }),
      el('input', { id: 'code', name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', required: '' }),
      el('button', { type: 'submit', text: 'Verify' }),
    ]);
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      api('/api/totp', { code: form.code.value }).then(function (r) {
        if (r.status === 200) go(withRedirect('/continue'));
        else msg.textContent = r.status === 401 ? 'That code is not valid.' : r.message;
      });
    });
    render(ctx.title, [form, msg]);
  }
  function continuePage(ctx) {
    var target = redirectUri ? safeTarget(ctx, redirectUri) : null;
    if (!target) return go('/logout');
    if (ctx.disableContinue) return location.replace(target);
    render('You are logged in', [el('p', { text: 'Continue to ' + target }), el('a', { class: 'button', href: target, text: 'Continue' })]);
  }
  function logoutPage(ctx, user) {
    var button = el('button', { type: 'button', text: 'Log out' });
    button.addEventListener('click', function () { api('/api/logout', {}).then(function () { go('/login'); }); });
    render(ctx.title, [el('p', { text: 'You are logged in as ' + (user.email || user.username) + '.' }), button]);
  }

  Promise.all([api('/api/app'), api('/api/user')]).then(function (res) {
    var ctx = res[0], user = res[1];
    document.title = ctx.title;
    switch (location.pathname) {
      case '/':
      case '/login': return user.isLoggedIn ? go(withRedirect('/continue')) : loginPage(ctx);
      case '/totp': return user.totpPending === 'true' ? totpPage(ctx) : go(withRedirect('/login'));
      case '/continue': return user.isLoggedIn ? continuePage(ctx) : go(withRedirect('/login'));
      case '/logout': return user.isLoggedIn ? logoutPage(ctx, user) : go('/login');
      case '/forgot-password': return render('Forgot your password?', [el('p', { text: ctx.forgotPasswordMessage })]);
      case '/unauthorized': return render('Access denied', [el('p', { text: 'You are not allowed to use this application.' })]);
      case '/error': return render('Something went wrong', [el('p', { text: 'Please try to log in again.' })]);
      default: return render('Page not found', [el('a', { href: '/login', text: 'Go to login' })]);
    }
  });
})();
