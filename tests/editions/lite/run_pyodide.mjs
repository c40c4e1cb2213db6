// Run a Python file in Pyodide under Node, with wheels unpacked into its site-packages:
//   node run_pyodide.mjs PYODIDE_DIR SCRIPT.py WHEEL...
// Prints what the script prints. Nothing is fetched: no package outside Pyodide's core is
// loaded, so its CDN is never asked. The files live in Pyodide's in-memory file system.
import { readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, script, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(join(resolve(pyodideDir), "pyodide.mjs")));
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) });
for (const wheel of wheels) {
  // A wheel is a zip: its files are the installed package (pure Python, nothing to build).
  const site = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "zip", { extractDir: site });
  console.error(`unpacked ${basename(wheel)}`);
}
pyodide.FS.writeFile("/tmp/script.py", readFileSync(script));
await pyodide.runPythonAsync("import runpy; runpy.run_path('/tmp/script.py', run_name='__main__')");
