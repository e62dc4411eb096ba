// Storage built-ins: core PersistentVolumeClaim and PersistentVolume, storage.k8s.io StorageClass, CSIDriver, CSINode,
// CSIStorageCapacity and VolumeAttachment.
// Go: pkg/apis/core/validation (ValidatePersistentVolume*), pkg/apis/storage/validation, pkg/printers
import { OMIT_VALUE as OMIT, type FieldError } from '../schema/index.js';
import { ageColumn, asArray, asRecord, column, nameColumn } from '../printers.js';
import { deepEqual, isPlainObject, type KubeObject } from '../types.js';
import { forbidden, immutable, invalid, notSupported, oneOf, required } from './checks.js';
import { defineBuiltin } from './define.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const ACCESS_ABBREV: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

/** accessModesString is GetAccessModesAsString: the abbreviations in a fixed order ("RWO,ROX"). */
function accessModesString(modes: unknown): string {
  const list = asArray(modes).map(String);
  return ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod']
    .filter((m) => list.includes(m))
    .map((m) => ACCESS_ABBREV[m])
    .join(',');
}

function validateAccessModes(errs: FieldError[], path: string, modes: unknown): void {
  const list = asArray(modes);
  if (list.length === 0) {
    errs.push(required(path, 'at least 1 access mode is required'));
    return;
  }
  for (const m of list) if (!ACCESS_MODES.includes(String(m))) errs.push(notSupported(path, m, ACCESS_MODES));
  if (list.includes('ReadWriteOncePod') && list.length > 1) errs.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
}

const storageClassOf = (o: KubeObject) => {
  const spec = asRecord(o.spec);
  return String(spec.storageClassName ?? o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '');
};

// ---------------------------------------------------------------- PersistentVolumeClaim

// Go: ValidatePersistentVolumeClaimSpec
function validatePVCSpec(spec: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  validateAccessModes(errs, `${path}.accessModes`, spec.accessModes);
  const requests = asRecord(asRecord(spec.resources).requests);
  if (requests.storage === undefined && !spec.dataSource && !spec.dataSourceRef) errs.push(required(`${path}.resources[storage]`));
  oneOf(errs, `${path}.volumeMode`, spec.volumeMode, ['Block', 'Filesystem']);
  return errs;
}

/** pvcDescriptor: core/v1 PersistentVolumeClaim with status (phase Pending until the binder binds it). */
export const pvcDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  namespaced: true,
  shortNames: ['pvc'],
  status: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Status', 'string', (o) => (o.metadata?.deletionTimestamp ? 'Terminating' : String(asRecord(o.status).phase ?? ''))),
    column('Volume', 'string', (o) => String(asRecord(o.spec).volumeName ?? '')),
    column('Capacity', 'string', (o) => String(asRecord(asRecord(o.status).capacity).storage ?? '')),
    column('Access Modes', 'string', (o) => accessModesString(asRecord(o.status).accessModes)),
    column('StorageClass', 'string', storageClassOf, { description: 'StorageClass of the pvc' }),
    column('VolumeAttributesClass', 'string', (o) => String(asRecord(o.spec).volumeAttributesClassName ?? '<unset>'), { description: 'VolumeAttributesClass of the pvc' }),
    ageColumn,
    column('VolumeMode', 'string', (o) => String(asRecord(o.spec).volumeMode ?? '<unset>'), { priority: 1 }),
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending' };
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: (obj) => validatePVCSpec(asRecord(obj.spec), 'spec'),
    validateUpdate(obj, old) {
      const errs = validatePVCSpec(asRecord(obj.spec), 'spec');
      // Go: ValidatePersistentVolumeClaimUpdate — only requests (and the attributes class) may change, and a binder may
      // fill in volumeName once.
      const strip = (s: unknown) => {
        const { resources, volumeAttributesClassName: _v, volumeName, ...rest } = asRecord(s);
        const { requests: _r, ...res } = asRecord(resources);
        return { ...rest, resources: res, volumeName: volumeName ?? '' };
      };
      const cur = strip(obj.spec);
      const prev = strip(old.spec);
      if (prev.volumeName === '') cur.volumeName = '';
      if (!deepEqual(cur, prev)) errs.push(forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
      return errs;
    },
  },
});

// ---------------------------------------------------------------- PersistentVolume

const PV_SOURCES = [
  'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'csi', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk',
  'glusterfs', 'hostPath', 'iscsi', 'local', 'nfs', 'photonPersistentDisk', 'portworxVolume', 'quobyte', 'rbd', 'scaleIO',
  'storageos', 'vsphereVolume',
];

// Go: ValidatePersistentVolumeSpec
function validatePV(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  validateAccessModes(errs, 'spec.accessModes', spec.accessModes);
  const capacity = asRecord(spec.capacity);
  if (Object.keys(capacity).length === 0) errs.push(required('spec.capacity'));
  else if (capacity.storage === undefined) errs.push(notSupported('spec.capacity', Object.keys(capacity)[0], ['storage']));
  oneOf(errs, 'spec.persistentVolumeReclaimPolicy', spec.persistentVolumeReclaimPolicy, ['Delete', 'Recycle', 'Retain']);
  oneOf(errs, 'spec.volumeMode', spec.volumeMode, ['Block', 'Filesystem']);
  const sources = PV_SOURCES.filter((s) => isPlainObject(spec[s]));
  if (sources.length === 0) errs.push(required('spec', 'must specify a volume type'));
  else if (sources.length > 1) errs.push(forbidden(`spec.${sources[1]}`, 'may not specify more than 1 volume type'));
  if (isPlainObject(spec.local) && !isPlainObject(spec.nodeAffinity)) errs.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
  return errs;
}

/** pvDescriptor: core/v1 PersistentVolume with status. */
export const pvDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  namespaced: false,
  shortNames: ['pv'],
  status: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Capacity', 'string', (o) => String(asRecord(asRecord(o.spec).capacity).storage ?? '')),
    column('Access Modes', 'string', (o) => accessModesString(asRecord(o.spec).accessModes)),
    column('Reclaim Policy', 'string', (o) => String(asRecord(o.spec).persistentVolumeReclaimPolicy ?? '')),
    column('Status', 'string', (o) => (o.metadata?.deletionTimestamp ? 'Terminating' : String(asRecord(o.status).phase ?? ''))),
    column('Claim', 'string', (o) => {
      const ref = asRecord(asRecord(o.spec).claimRef);
      return ref.name ? `${ref.namespace}/${ref.name}` : '';
    }),
    column('StorageClass', 'string', storageClassOf, { description: 'StorageClass of the pv' }),
    column('VolumeAttributesClass', 'string', (o) => String(asRecord(o.spec).volumeAttributesClassName ?? '<unset>'), { description: 'VolumeAttributesClass of the pv' }),
    column('Reason', 'string', (o) => String(asRecord(o.status).reason ?? '')),
    ageColumn,
    column('VolumeMode', 'string', (o) => String(asRecord(o.spec).volumeMode ?? '<unset>'), { priority: 1 }),
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending' };
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: validatePV,
    validateUpdate(obj, old) {
      const errs = validatePV(obj);
      immutable(errs, 'spec.volumeMode', asRecord(obj.spec).volumeMode, asRecord(old.spec).volumeMode);
      return errs;
    },
  },
});

// ---------------------------------------------------------------- StorageClass

const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

// Go: ValidateStorageClass
function validateStorageClass(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof obj.provisioner !== 'string' || obj.provisioner === '') errs.push(required('provisioner'));
  else if (obj.provisioner.length > 63) errs.push({ type: 'FieldValueTooLong', field: 'provisioner', badValue: obj.provisioner, detail: 'must have at most 63 bytes' });
  oneOf(errs, 'reclaimPolicy', obj.reclaimPolicy, ['Delete', 'Retain']);
  oneOf(errs, 'volumeBindingMode', obj.volumeBindingMode, ['Immediate', 'WaitForFirstConsumer']);
  return errs;
}

/** storageClassDescriptor: storage.k8s.io/v1 StorageClass; parameters, provisioner and policies are immutable. */
export const storageClassDescriptor = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'StorageClass',
  plural: 'storageclasses',
  namespaced: false,
  shortNames: ['sc'],
  goDefaults: true,
  columns: [
    column('Name', 'string', (o) => {
      const a = o.metadata?.annotations ?? {};
      const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((k) => a[k] === 'true');
      return `${o.metadata?.name ?? ''}${isDefault ? ' (default)' : ''}`;
    }, { format: 'name', description: nameColumn.description }),
    column('Provisioner', 'string', (o) => String(o.provisioner ?? '')),
    column('ReclaimPolicy', 'string', (o) => String(o.reclaimPolicy ?? 'Delete')),
    column('VolumeBindingMode', 'string', (o) => String(o.volumeBindingMode ?? 'Immediate')),
    column('AllowVolumeExpansion', 'string', (o) => String(o.allowVolumeExpansion === true)),
    ageColumn,
  ],
  hooks: {
    validate: validateStorageClass,
    validateUpdate(obj, old) {
      const errs = validateStorageClass(obj);
      if (!deepEqual(obj.parameters ?? {}, old.parameters ?? {})) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
      if (obj.provisioner !== old.provisioner) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
      if (obj.reclaimPolicy !== old.reclaimPolicy) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
      immutable(errs, 'volumeBindingMode', obj.volumeBindingMode, old.volumeBindingMode);
      return errs;
    },
  },
});

// ---------------------------------------------------------------- CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment

const yesNo = (v: unknown) => v === true;

/** csiDriverDescriptor: storage.k8s.io/v1 CSIDriver. */
export const csiDriverDescriptor = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIDriver',
  plural: 'csidrivers',
  namespaced: false,
  goDefaults: true,
  columns: [
    nameColumn,
    column('AttachRequired', 'boolean', (o) => yesNo(asRecord(o.spec).attachRequired)),
    column('PodInfoOnMount', 'boolean', (o) => yesNo(asRecord(o.spec).podInfoOnMount)),
    column('StorageCapacity', 'boolean', (o) => yesNo(asRecord(o.spec).storageCapacity)),
    column('TokenRequests', 'string', (o) => {
      const t = asArray(asRecord(o.spec).tokenRequests).map((x) => String(asRecord(x).audience));
      return t.length > 0 ? t.join(',') : '<unset>';
    }),
    column('RequiresRepublish', 'boolean', (o) => yesNo(asRecord(o.spec).requiresRepublish)),
    column('Modes', 'string', (o) => {
      const m = asArray(asRecord(o.spec).volumeLifecycleModes).map(String);
      return m.length > 0 ? m.join(',') : '<none>';
    }),
    ageColumn,
  ],
  hooks: {
    validate(obj) {
      const errs: FieldError[] = [];
      const spec = asRecord(obj.spec);
      oneOf(errs, 'spec.fsGroupPolicy', spec.fsGroupPolicy, ['File', 'None', 'ReadWriteOnceWithFSType']);
      for (const m of asArray(spec.volumeLifecycleModes)) oneOf(errs, 'spec.volumeLifecycleModes', m, ['Ephemeral', 'Persistent']);
      return errs;
    },
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      immutable(errs, 'spec.attachRequired', asRecord(obj.spec).attachRequired, asRecord(old.spec).attachRequired);
      return errs;
    },
  },
});

/** csiNodeDescriptor: storage.k8s.io/v1 CSINode. */
export const csiNodeDescriptor = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSINode',
  plural: 'csinodes',
  namespaced: false,
  columns: [nameColumn, column('Drivers', 'integer', (o) => asArray(asRecord(o.spec).drivers).length), ageColumn],
  hooks: {
    validate(obj) {
      const errs: FieldError[] = [];
      asArray(asRecord(obj.spec).drivers).forEach((d, i) => {
        if (!asRecord(d).name) errs.push(required(`spec.drivers[${i}].name`));
        if (!asRecord(d).nodeID) errs.push(required(`spec.drivers[${i}].nodeID`));
      });
      return errs;
    },
  },
});

/** csiStorageCapacityDescriptor: storage.k8s.io/v1 CSIStorageCapacity. */
export const csiStorageCapacityDescriptor = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIStorageCapacity',
  plural: 'csistoragecapacities',
  namespaced: true,
  columns: [nameColumn, column('StorageClassName', 'string', (o) => String(o.storageClassName ?? '')), column('Capacity', 'string', (o) => String(o.capacity ?? ''))],
  hooks: {
    validate(obj) {
      return typeof obj.storageClassName === 'string' && obj.storageClassName !== '' ? [] : [required('storageClassName')];
    },
  },
});

/** volumeAttachmentDescriptor: storage.k8s.io/v1 VolumeAttachment (spec immutable). */
export const volumeAttachmentDescriptor = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  namespaced: false,
  status: true,
  columns: [
    nameColumn,
    column('Attacher', 'string', (o) => String(asRecord(o.spec).attacher ?? ''), { format: 'name' }),
    column('PV', 'string', (o) => String(asRecord(asRecord(o.spec).source).persistentVolumeName ?? '')),
    column('Node', 'string', (o) => String(asRecord(o.spec).nodeName ?? '')),
    column('Attached', 'boolean', (o) => asRecord(o.status).attached === true),
    ageColumn,
  ],
  hooks: {
    prepareForCreate(obj) {
      delete obj.status;
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate(obj) {
      const errs: FieldError[] = [];
      const spec = asRecord(obj.spec);
      if (!spec.attacher) errs.push(required('spec.attacher'));
      if (!spec.nodeName) errs.push(required('spec.nodeName'));
      const source = asRecord(spec.source);
      const n = (source.persistentVolumeName ? 1 : 0) + (source.inlineVolumeSpec ? 1 : 0);
      if (n !== 1) errs.push(invalid('spec.source', OMIT, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
      return errs;
    },
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      if (!deepEqual(obj.spec, old.spec)) errs.push(invalid('spec', OMIT, 'field is immutable'));
      return errs;
    },
  },
});
