// The ClusterRole aggregation controller: a ClusterRole with an aggregationRule gets, as its rules, the union of the
// rules of every ClusterRole its selectors match (in name order, duplicates dropped), kept in sync on every committed
// ClusterRole change. Go: pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go
import type { Cluster, Logger } from '../cluster.js';
import { asArray, asRecord } from '../printers.js';
import { internalWrite, mutate, scopeFor } from '../registry.js';
import { labelSelectorFromMatch } from '../selectors.js';
import { isStatusError } from '../status.js';
import { deepEqual, type Stored } from '../types.js';
import { CLUSTER_ROLES } from './rbac.js';

/** AggregationController keeps aggregated ClusterRoles' rules in sync. */
export class AggregationController {
  private stopped = false;
  private scheduled: NodeJS.Immediate | undefined;
  private readonly write = internalWrite('clusterrole-aggregation-controller');

  constructor(
    private readonly cluster: Cluster,
    private readonly logger: Logger,
  ) {
    cluster.hub.listen((ev) => {
      if (ev.storage === CLUSTER_ROLES) this.schedule();
    });
  }

  /** syncAll reconciles every aggregated ClusterRole now, passing again while a pass changed something (an aggregated
   * role may itself be aggregated: view into edit into admin), and returns how many writes it made. */
  syncAll(): number {
    let total = 0;
    for (let pass = 0; pass < 8; pass++) {
      let n = 0;
      const table = this.cluster.table(CLUSTER_ROLES);
      const roles = [...table.objects.values()].sort((a, b) => (a.obj.metadata.name! < b.obj.metadata.name! ? -1 : 1));
      for (const role of roles) {
        const fresh = () => [...table.objects.values()].sort((a, b) => (a.obj.metadata.name! < b.obj.metadata.name! ? -1 : 1));
        if (role.obj.aggregationRule && this.sync(table.objects.get(`/${role.obj.metadata.name}`) ?? role, fresh())) n++;
      }
      total += n;
      if (n === 0) break;
    }
    return total;
  }

  /** stop ends the controller. */
  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  private schedule(): void {
    if (this.stopped || this.scheduled) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      if (!this.stopped) this.syncAll();
    });
  }

  private sync(role: Stored, all: Stored[]): boolean {
    const name = role.obj.metadata.name!;
    const rules: unknown[] = [];
    try {
      const selectors = asArray(asRecord(role.obj.aggregationRule).clusterRoleSelectors).map((s) => labelSelectorFromMatch(asRecord(s) as never));
      for (const other of all) {
        if (other.obj.metadata.name === name) continue;
        const labels = other.obj.metadata.labels ?? {};
        if (!selectors.some((sel) => sel.matches(labels))) continue;
        for (const r of asArray(other.obj.rules)) if (!rules.some((x) => deepEqual(x, r))) rules.push(r);
      }
    } catch (e) {
      this.logger.warn({ clusterRole: name, err: e instanceof Error ? e.message : String(e) }, 'ClusterRole aggregationRule has an invalid selector; its rules are left as they are');
      return false;
    }
    if (deepEqual(asArray(role.obj.rules), rules)) return false;
    const desc = this.cluster.registry.forStorage(CLUSTER_ROLES);
    if (!desc) return false;
    try {
      mutate(scopeFor(this.cluster, desc, ''), name, (o) => {
        o.rules = rules;
      }, this.write);
      return true;
    } catch (e) {
      if (!isStatusError(e, 'Conflict') && !isStatusError(e, 'NotFound')) this.logger.warn({ clusterRole: name, err: e instanceof Error ? e.message : String(e) }, 'aggregating ClusterRole rules failed');
      return false;
    }
  }
}
