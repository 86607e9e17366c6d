/**
 * Adds Dolibarr's table prefix ($dolibarr_main_db_prefix, `llx_` by default) to the logical table
 * names of `Database`. Only names in the known set are rewritten, so table names given in full
 * (the migrator's own tables) pass unchanged, and a prefix of '' is a no-op.
 */
import {
  IdentifierNode,
  OperationNodeTransformer,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type TableNode,
  type UnknownRow,
} from 'kysely';

class PrefixTransformer extends OperationNodeTransformer {
  constructor(
    private readonly prefix: string,
    private readonly names: ReadonlySet<string>,
  ) {
    super();
  }

  protected override transformTable(node: TableNode): TableNode {
    const table = super.transformTable(node);
    const name = table.table.identifier.name;
    if (!this.names.has(name)) return table;
    return {
      ...table,
      table: { ...table.table, identifier: IdentifierNode.create(this.prefix + name) },
    };
  }
}

export class TablePrefixPlugin implements KyselyPlugin {
  readonly #transformer: PrefixTransformer;

  constructor(prefix: string, names: Iterable<string>) {
    this.#transformer = new PrefixTransformer(prefix, new Set(names));
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
