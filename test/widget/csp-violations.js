/* global window, document */
// Loaded by csp-page.html before the element: records what the page's CSP blocks.
window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.violations.push(`${e.violatedDirective} ${e.blockedURI}`);
});
