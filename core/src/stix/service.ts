import type { DomainGates } from '../gates/domain-gates.js'
import { exportStix, type StixExport, type StixExportRequest } from './export.js'
import type { StixHost } from './host.js'
import { importStix, type StixImportReport, type StixImportRequest } from './import.js'
import { type StixValidateRequest, type StixValidationResult, validateStix } from './validate-request.js'

export interface StixCallOptions {
  /** Aborts a provider call (the cti pack's node validation) when the caller goes away. */
  signal?: AbortSignal | undefined
}

/**
 * STIX 2.1 as an engine feature: the same import, validation and export for every door, with the domain
 * gates applied here (the cti pack joins graph validation and strict export only when deployed, licensed and
 * ready).
 */
export class StixService {
  constructor(
    private readonly host: StixHost,
    private readonly gates: DomainGates,
  ) {}

  import(request: StixImportRequest): Promise<StixImportReport> {
    return importStix(this.host, request)
  }

  validate(request: StixValidateRequest, options: StixCallOptions = {}): Promise<StixValidationResult> {
    return validateStix(this.host, {
      ...request,
      validateNode: request.validateNode ?? this.gates.ctiValidator(options.signal),
    })
  }

  export(request: StixExportRequest = {}, options: StixCallOptions = {}): Promise<StixExport> {
    return exportStix(this.host, {
      ...request,
      validateNode: request.validateNode ?? this.gates.ctiValidator(options.signal),
    })
  }
}
