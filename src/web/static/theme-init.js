// Applies the per-device theme before first paint (docs/api.md: one light and one dark theme,
// prefers-color-scheme unless the device chose one). A static file: the CSP allows no inline script.
(function () {
  try {
    var t = localStorage.getItem('warrant.theme');
    if (t === 'light' || t === 'dark') document.documentElement.setAttribute('data-theme', t);
  } catch {
    /* storage blocked: follow the system */
  }
})();
