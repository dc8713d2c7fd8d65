// The project's dependency rules as four small ESLint rules: an allow-list for domain packages
// (a deny-list always misses the next adapter), "folders of packages/postgres meet only through
// their index.ts", "apps only wire" (app-wiring: only an app's composition root imports the
// database adapter) and "drivers call use cases, not stores" (driver-store-calls).
// eslint.config.js applies them; test/dependency-rules.test.ts proves they fire.
import { dirname, relative, resolve, sep } from 'node:path';

/** packages/<name>/src/… of a file, or null. */
function packageOf(context) {
  const parts = relative(context.cwd, context.filename).split(sep);
  return parts[0] === 'packages' && parts[2] === 'src' ? { name: parts[1], src: resolve(context.cwd, parts.slice(0, 3).join(sep)) } : null;
}

function importSources(context, check) {
  const visit = (node) => node.source && typeof node.source.value === 'string' && check(node.source, node.source.value);
  return {
    ImportDeclaration: visit,
    ExportNamedDeclaration: visit,
    ExportAllDeclaration: visit,
    ImportExpression: visit,
  };
}

const domainImports = {
  meta: {
    type: 'problem',
    schema: [{ type: 'object', properties: { domains: { type: 'array' }, extra: { type: 'array' } }, additionalProperties: false }],
    messages: {
      denied: "domain packages import only './…' inside the package, 'node:…' and other domain packages (@inntak/{{domains}}); not '{{source}}'",
    },
  },
  create(context) {
    const { domains, extra = [] } = context.options[0];
    const pkg = packageOf(context);
    if (!pkg) return {};
    const allowed = (source) => {
      if (source.startsWith('node:')) return true;
      if (extra.includes(source)) return true;
      const scoped = /^@inntak\/([a-z-]+)$/.exec(source);
      if (scoped) return domains.includes(scoped[1]);
      if (source.startsWith('./') || source.startsWith('../')) {
        const target = resolve(dirname(context.filename), source);
        return target === pkg.src || target.startsWith(pkg.src + sep);
      }
      return false;
    };
    return importSources(context, (node, source) => {
      if (!allowed(source)) context.report({ node, messageId: 'denied', data: { source, domains: domains.join('|') } });
    });
  },
};

const postgresFolders = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { deep: "folders of packages/postgres import each other through '../{{folder}}/index.js', not '{{source}}'" },
  },
  create(context) {
    const pkg = packageOf(context);
    if (!pkg || pkg.name !== 'postgres') return {};
    const own = relative(pkg.src, context.filename).split(sep)[0];
    return importSources(context, (node, source) => {
      if (!source.startsWith('.')) return;
      const target = relative(pkg.src, resolve(dirname(context.filename), source)).split(sep);
      if (target.length < 2 || target[0] === own || target[0] === '..') return;
      if (target.length === 2 && target[1] === 'index.js') return;
      context.report({ node, messageId: 'deep', data: { folder: target[0], source } });
    });
  },
};

/** Apps only wire (issue 23): outside an app's composition root, no database adapter or driver. */
const appWiring = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { adapter: "only the app's composition root (main.ts, and compose.ts, api-server.ts or worker.ts) imports '{{source}}'; take the operation through its deps" },
  },
  create(context) {
    return importSources(context, (node, source) => {
      if (/^(@inntak\/postgres(\/.*)?|kysely(\/.*)?|pg)$/.test(source)) context.report({ node, messageId: 'adapter', data: { source } });
    });
  },
};

/**
 * One door per use case (issue 36): a driver (route, console form, CLI command, worker task) calls
 * the domain's use case, which takes the store; a call on the store itself (`deps.store.x()`,
 * `deps.intakeStore.x()`) would skip its authorization and invariants.
 */
const driverStoreCalls = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { store: "drivers call a use case, not its store: '{{text}}(…)' reaches past it (pass the store to the domain package's use case)" },
  },
  create(context) {
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.object.type !== 'MemberExpression') return;
        const owner = callee.object;
        if (owner.object.type !== 'Identifier' || owner.object.name !== 'deps' || owner.property.type !== 'Identifier') return;
        if (!/store$/i.test(owner.property.name)) return;
        const method = callee.property.type === 'Identifier' ? callee.property.name : '…';
        context.report({ node, messageId: 'store', data: { text: `deps.${owner.property.name}.${method}` } });
      },
    };
  },
};

export default { rules: { 'domain-imports': domainImports, 'postgres-folders': postgresFolders, 'app-wiring': appWiring, 'driver-store-calls': driverStoreCalls } };
