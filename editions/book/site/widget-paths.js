// Loaded between require.js and embed-amd.js. The widget manager's modules ask for their
// icon fonts beside the address require.js gives each module, by default a folder under
// the page's (<page>/@jupyter-widgets/..., a 404): give every one of them the folder where
// build.py put the fonts, this script's own.
(() => {
  const here = document.currentScript.src.replace(/\/[^/]*$/, "");
  require.config({paths: {"@jupyter-widgets": here, "@jupyter-widgets/html-manager/dist": here}});
})();
