// Quartermaster's public API in one include: the Engine and its specs and results, plus reading
// manifests and scenario files.
//
//   #include "qm/qm.h"
//   qm::Engine engine;                                   // qm/adapter/engine.h
//   QM_ASSIGN_OR_RETURN(qm::Manifest m, qm::ReadManifestFile("cluster.yaml"));
//   QM_RETURN_IF_ERROR(qm::ApplyManifest(engine, m.objects));
//   const qm::CycleResult& decisions = engine.ScheduleCycle();
//
// The solver and state headers (qm/solver, qm/state, qm/queue) are usable directly but are not
// part of the stable API.
#ifndef QM_QM_H_
#define QM_QM_H_

#include "qm/adapter/engine.h"
#include "qm/core/quantity.h"
#include "qm/core/quantity_text.h"
#include "qm/core/status.h"
#include "qm/hyperpod/governance.h"
#include "qm/hyperpod/instance_catalog.h"
#include "qm/hyperpod/policy_reader.h"
#include "qm/hyperpod/render.h"
#include "qm/hyperpod/translate.h"
#include "qm/io/manifest.h"
#include "qm/text/manifest_writer.h"
#include "qm/io/scenario.h"
#include "qm/model/validate.h"
#include "qm/version.h"

#endif  // QM_QM_H_
