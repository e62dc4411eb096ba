// template-data.ts: the dot of event-stage templates, built as the Go values event-manager passes
// (controllers.currentObject / controllers.currentObjects structs with corev1.ObjectReference fields), so field
// access, printing and error texts read like Go: `.MatchingResource.Name` (struct field, capitalised) next to
// `.Resource.metadata.name` (map keys), and "can't evaluate field Resources in type controllers.currentObject".
// Go: event-manager controllers/eventtrigger_deployer.go currentObject, currentObjects, prepareCurrentObjectList
import { GoStruct, withGoType, type GoMap, type GoValue } from '../gotemplate/index.js';

/** MatchedRef is the identity of one matched resource (corev1.ObjectReference fields event-manager fills). */
export interface MatchedRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** objectReference builds a corev1.ObjectReference struct value (field order as declared in Go). */
export function objectReference(r: Partial<MatchedRef> | undefined): GoStruct {
  return new GoStruct('v1.ObjectReference', {
    Kind: r?.kind ?? '',
    Namespace: r?.namespace ?? '',
    Name: r?.name ?? '',
    UID: '',
    APIVersion: r?.apiVersion ?? '',
    ResourceVersion: '',
    FieldPath: '',
  });
}

// A nil map[string]interface{} behaves like an empty one in templates (no keys, prints map[], false in if).
const nilMap = (): GoMap => withGoType({}, 'map[string]interface {}');

/** oneEventData is the dot when `oneForEvent: true`: one matched resource (or CloudEvent) and the source cluster. */
export function oneEventData(o: { ref?: MatchedRef; resource?: GoMap | null; cloudEvent?: GoMap | null; cluster: GoMap }): GoStruct {
  return new GoStruct('controllers.currentObject', {
    MatchingResource: objectReference(o.ref),
    Resource: o.resource ?? nilMap(),
    CloudEvent: o.cloudEvent ?? nilMap(),
    Cluster: o.cluster,
  });
}

/**
 * allEventsData is the dot when `oneForEvent: false`: every matched resource. As in event-manager, `.Resources` has
 * one trailing empty map per CloudEvent.
 */
export function allEventsData(o: { refs: readonly MatchedRef[]; resources: readonly GoMap[]; cloudEvents: readonly GoMap[]; cluster: GoMap }): GoStruct {
  const resources: GoValue[] = [...o.resources, ...o.cloudEvents.map(() => nilMap())];
  return new GoStruct('controllers.currentObjects', {
    MatchingResources: withGoType(o.refs.map(objectReference), '[]v1.ObjectReference'),
    Resources: withGoType(resources, '[]map[string]interface {}'),
    CloudEvents: withGoType([...o.cloudEvents], '[]map[string]interface {}'),
    Cluster: o.cluster,
  });
}
