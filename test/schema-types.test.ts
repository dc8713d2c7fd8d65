import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import ts from 'typescript';
import { createTestDatabase, type TestDatabase } from '@inntak/postgres/testing';

// packages/postgres/src/platform/schema.ts is written by hand (its column types say how the
// code reads and writes each column: domain enums, jsonb as objects, bigint ids never inserted).
// This test holds it to the migrated database: the same tables and columns, the same
// nullability, a select type of the column's kind, and no column the types let an insert omit
// that the database then refuses (NOT NULL without a default).
const SCHEMA_TS = fileURLToPath(new URL('../packages/postgres/src/platform/schema.ts', import.meta.url));

/** Tables the code reaches only through raw `sql` (no kysely row type); a new table is declared here or in schema.ts. */
const RAW_SQL_TABLES = ['ab_decisions', 'ab_events', 'ab_impressions', 'ab_tests', 'publication_domains', 'schema_version', 'server_secrets'];

type Kind = 'string' | 'number' | 'boolean' | 'Date' | 'Buffer' | 'json';

interface DbColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
  omittable: boolean;
}

interface TsColumn {
  nullable: boolean;
  kinds: Set<Kind>;
  omittable: boolean;
}

function kindOfPg(dataType: string): Kind {
  if (['smallint', 'integer', 'real', 'double precision'].includes(dataType)) return 'number';
  if (dataType === 'boolean') return 'boolean';
  if (dataType.startsWith('timestamp') || dataType === 'date') return 'Date';
  if (dataType === 'bytea') return 'Buffer';
  if (dataType === 'jsonb' || dataType === 'json' || dataType === 'ARRAY') return 'json';
  // text, uuid, enums, bigint and numeric (pg returns them as strings), tsvector, inet.
  return 'string';
}

/** The row types of schema.ts's `Database`, resolved by the TypeScript checker (aliases, Generated, ColumnType). */
function typedTables(): Map<string, Map<string, TsColumn>> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const program = ts.createProgram([SCHEMA_TS], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    baseUrl: root,
    paths: { '@inntak/*': ['packages/*/src/index.ts'] },
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(SCHEMA_TS)!;
  // An import that did not resolve would read as `any` and hide a mismatch.
  const diagnostics = ts.getPreEmitDiagnostics(program, source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (diagnostics.length > 0) throw new Error(`schema.ts does not type-check here: ${diagnostics.join('; ')}`);
  const database = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Database')!;
  const members = (type: ts.Type): ts.Type[] => (type.isUnion() ? type.types : [type]);
  const kindOf = (type: ts.Type): Kind | 'null' | 'undefined' => {
    if (type.flags & ts.TypeFlags.Null) return 'null';
    if (type.flags & ts.TypeFlags.Undefined) return 'undefined';
    if (type.flags & ts.TypeFlags.StringLike) return 'string';
    if (type.flags & ts.TypeFlags.NumberLike) return 'number';
    if (type.flags & ts.TypeFlags.BooleanLike) return 'boolean';
    const name = type.getSymbol()?.getName();
    if (name === 'Date') return 'Date';
    if (name === 'Buffer') return 'Buffer';
    return 'json';
  };
  const tables = new Map<string, Map<string, TsColumn>>();
  for (const table of checker.getTypeAtLocation(database).getProperties()) {
    const columns = new Map<string, TsColumn>();
    for (const column of checker.getTypeOfSymbolAtLocation(table, database).getProperties()) {
      const type = checker.getTypeOfSymbolAtLocation(column, database);
      // kysely's ColumnType<Select, Insert, Update> (and Generated<T>) is { __select__, __insert__, __update__ }.
      const part = (name: string) => {
        const symbol = type.getProperty(name);
        return symbol ? checker.getTypeOfSymbolAtLocation(symbol, database) : type;
      };
      const selected = members(part('__select__')).map(kindOf);
      const insert = part('__insert__');
      const inserted = members(insert).map(kindOf);
      columns.set(column.getName(), {
        nullable: selected.includes('null'),
        kinds: new Set(selected.filter((k): k is Kind => k !== 'null' && k !== 'undefined')),
        // Insertable<> drops never columns and makes undefined- or null-accepting ones optional.
        omittable: Boolean(insert.flags & ts.TypeFlags.Never) || inserted.includes('undefined') || inserted.includes('null'),
      });
    }
    tables.set(table.getName(), columns);
  }
  return tables;
}

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

it('schema.ts has the tables, columns, nullability and column kinds of the migrated database', async () => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const { rows } = await client
    .query<DbColumn>(
      `select table_name, column_name, data_type, is_nullable,
           (column_default is not null or is_identity = 'YES' or is_generated = 'ALWAYS' or is_nullable = 'YES') as omittable
      from information_schema.columns c
     where table_schema = 'public'
       and exists (select 1 from information_schema.tables t where t.table_schema = 'public' and t.table_name = c.table_name and t.table_type = 'BASE TABLE')
     order by table_name, ordinal_position`,
    )
    .finally(() => client.end());
  const migrated = new Map<string, DbColumn[]>();
  for (const row of rows) migrated.set(row.table_name, [...(migrated.get(row.table_name) ?? []), row]);
  const typed = typedTables();
  expect(typed.size).toBeGreaterThan(20);

  const problems: string[] = [];
  for (const name of migrated.keys()) {
    if (!typed.has(name) && !RAW_SQL_TABLES.includes(name)) problems.push(`${name}: a table of the migrations missing from Database (or RAW_SQL_TABLES)`);
  }
  for (const [table, columns] of typed) {
    const actual = migrated.get(table);
    if (!actual) {
      problems.push(`${table}: in Database, not in the migrated schema`);
      continue;
    }
    for (const column of actual) {
      const declared = columns.get(column.column_name);
      const where = `${table}.${column.column_name}`;
      if (!declared) {
        problems.push(`${where}: a column of the migrations missing from schema.ts`);
        continue;
      }
      const nullable = column.is_nullable === 'YES';
      if (declared.nullable !== nullable) problems.push(`${where}: ${nullable ? 'nullable' : 'not null'} in the database, ${declared.nullable ? 'nullable' : 'not null'} in schema.ts`);
      const kind = kindOfPg(column.data_type);
      if (kind !== 'json' && !(declared.kinds.size === 1 && declared.kinds.has(kind))) {
        problems.push(`${where}: ${column.data_type} is read as ${kind}; schema.ts says ${[...declared.kinds].join(' | ')}`);
      }
      if (declared.omittable && !column.omittable) problems.push(`${where}: schema.ts lets an insert omit it, the database has no default`);
    }
    for (const name of columns.keys()) {
      if (!actual.some((c) => c.column_name === name)) problems.push(`${table}.${name}: in schema.ts, not in the migrated schema`);
    }
  }
  expect(problems).toEqual([]);
});
