import type { CypherErrorPhase } from './errors.js'

/**
 * Neo4j status codes for our Cypher error codes. Our codes stay what the spec and HTTP clients match on;
 * this is the extra field a Neo4j-speaking door (Bolt) reports and a Neo4j-trained client matches on.
 * Neo4j 5's classification is the reference: a malformed query is a SyntaxError, a well-formed query that
 * cannot mean anything a SemanticError, a bad value at run time a TypeError or ArgumentError.
 */
const BY_CODE: Readonly<Record<string, string>> = {
  CYPHER_SYNTAX_ERROR: 'Neo.ClientError.Statement.SyntaxError',
  INVALID_UNICODE_LITERAL: 'Neo.ClientError.Statement.SyntaxError',
  INVALID_NUMBER_LITERAL: 'Neo.ClientError.Statement.SyntaxError',
  UNSUPPORTED_CYPHER_FEATURE: 'Neo.ClientError.Statement.FeatureNotSupported' as const,
  EXTERNAL_RESOURCE_FAILED: 'Neo.ClientError.Statement.ExternalResourceFailed',
  LOAD_CSV_NOT_ALLOWED: 'Neo.ClientError.Statement.ExternalResourceFailed',

  VARIABLE_ALREADY_BOUND: 'Neo.ClientError.Statement.SemanticError',
  UNDEFINED_VARIABLE: 'Neo.ClientError.Statement.SemanticError',
  VARIABLE_TYPE_CONFLICT: 'Neo.ClientError.Statement.SemanticError',
  INVALID_CLAUSE_COMPOSITION: 'Neo.ClientError.Statement.SemanticError',
  INVALID_NUMBER_OF_ARGUMENTS: 'Neo.ClientError.Statement.SemanticError',
  INVALID_AGGREGATION: 'Neo.ClientError.Statement.SemanticError',
  NESTED_AGGREGATION: 'Neo.ClientError.Statement.SemanticError',
  AMBIGUOUS_AGGREGATION_EXPRESSION: 'Neo.ClientError.Statement.SemanticError',
  NO_EXPRESSION_ALIAS: 'Neo.ClientError.Statement.SemanticError',
  NON_CONSTANT_EXPRESSION: 'Neo.ClientError.Statement.SemanticError',
  NO_SINGLE_RELATIONSHIP_TYPE: 'Neo.ClientError.Statement.SemanticError',
  REQUIRES_DIRECTED_RELATIONSHIP: 'Neo.ClientError.Statement.SemanticError',
  CREATING_VAR_LENGTH: 'Neo.ClientError.Statement.SemanticError',
  RELATIONSHIP_UNIQUENESS_VIOLATION: 'Neo.ClientError.Statement.SemanticError',
  DIFFERENT_COLUMNS_IN_UNION: 'Neo.ClientError.Statement.SemanticError',
  COLUMN_NAME_CONFLICT: 'Neo.ClientError.Statement.SemanticError',
  NO_VARIABLES_IN_SCOPE: 'Neo.ClientError.Statement.SemanticError',
  INVALID_PARAMETER_USE: 'Neo.ClientError.Statement.SemanticError',
  INVALID_DELETE: 'Neo.ClientError.Statement.SemanticError',
  UNKNOWN_FUNCTION: 'Neo.ClientError.Statement.SyntaxError',
  PROCEDURE_NOT_FOUND: 'Neo.ClientError.Procedure.ProcedureNotFound',
  UNKNOWN_PROCEDURE_OUTPUT: 'Neo.ClientError.Statement.SyntaxError',
  INVALID_ARGUMENT_PASSING_MODE: 'Neo.ClientError.Statement.SyntaxError',
  PROCEDURE_CALL_FAILED: 'Neo.ClientError.Procedure.ProcedureCallFailed',
  DATABASE_NOT_FOUND: 'Neo.ClientError.Database.DatabaseNotFound',
  EQUIVALENT_SCHEMA_RULE_ALREADY_EXISTS: 'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists',
  INDEX_DROP_FAILED: 'Neo.ClientError.Schema.IndexDropFailed',
  CONSTRAINT_DROP_FAILED: 'Neo.ClientError.Schema.ConstraintDropFailed',
  CONSTRAINT_CREATION_FAILED: 'Neo.ClientError.Schema.ConstraintCreationFailed',
  CONSTRAINT_VALIDATION_FAILED: 'Neo.ClientError.Schema.ConstraintValidationFailed',
  IMPLICIT_TRANSACTION_REQUIRED: 'Neo.ClientError.Transaction.ForbiddenDueToTransactionType',

  PARAMETER_MISSING: 'Neo.ClientError.Statement.ParameterMissing',
  INVALID_PARAMETER: 'Neo.ClientError.Statement.TypeError',
  UNSUPPORTED_PARAMETER_TYPE: 'Neo.ClientError.Statement.TypeError',
  INVALID_ARGUMENT_TYPE: 'Neo.ClientError.Statement.TypeError',
  INVALID_PROPERTY_TYPE: 'Neo.ClientError.Statement.TypeError',
  INVALID_ARGUMENT_VALUE: 'Neo.ClientError.Statement.ArgumentError',
  NEGATIVE_INTEGER_ARGUMENT: 'Neo.ClientError.Statement.ArgumentError',
  NUMBER_OUT_OF_RANGE: 'Neo.ClientError.Statement.ArgumentError',
  INTEGER_OVERFLOW: 'Neo.ClientError.Statement.ArithmeticError',
  FLOATING_POINT_OVERFLOW: 'Neo.ClientError.Statement.ArithmeticError',
  DIVISION_BY_ZERO: 'Neo.ClientError.Statement.ArithmeticError',
  REGEX_REJECTED: 'Neo.ClientError.Statement.ArgumentError',
  DELETED_ENTITY_ACCESS: 'Neo.ClientError.Statement.EntityNotFound',
  ENTITY_NOT_FOUND: 'Neo.ClientError.Statement.EntityNotFound',
  MERGE_NULL_PROPERTY: 'Neo.ClientError.Statement.SemanticError',
  DELETE_CONNECTED_NODE: 'Neo.ClientError.Schema.ConstraintValidationFailed',

  WRITE_PERMISSION_REQUIRED: 'Neo.ClientError.Statement.AccessMode',
  QUERY_BUDGET_EXCEEDED: 'Neo.ClientError.Statement.ExecutionFailed',
  REQUEST_LIMIT_EXCEEDED: 'Neo.ClientError.Request.Invalid',
  QUERY_ABORTED: 'Neo.ClientError.Transaction.Terminated',
  REQUEST_TIMEOUT: 'Neo.ClientError.Transaction.TransactionTimedOut',
  CYPHER_RUNTIME_ERROR: 'Neo.ClientError.Statement.ExecutionFailed',

  // Engine (not Cypher) conditions a Cypher door can meet: retryable ones are transient, so drivers retry.
  DURABILITY_FAILED: 'Neo.DatabaseError.Transaction.TransactionCommitFailed',
  STORAGE_UNAVAILABLE: 'Neo.TransientError.General.DatabaseUnavailable',
  OVERLOADED: 'Neo.TransientError.Request.ResourceExhaustion',
  ENGINE_CLOSED: 'Neo.TransientError.General.DatabaseUnavailable',
  STORAGE_FOLLOWER_LAGGING: 'Neo.TransientError.Transaction.BookmarkTimeout',
  STORAGE_READ_ONLY_FOLLOWER: 'Neo.ClientError.Cluster.NotALeader',
  STORAGE_FENCED: 'Neo.ClientError.Cluster.NotALeader',
  INTERNAL: 'Neo.DatabaseError.General.UnknownError',
  TRANSACTION_TIMED_OUT: 'Neo.ClientError.Transaction.TransactionTimedOut',
  TRANSACTION_CLOSED: 'Neo.ClientError.Transaction.TransactionNotFound',
  TRANSACTION_FAILED: 'Neo.ClientError.Transaction.TransactionMarkedAsFailed',
  WRITE_TURN_TIMEOUT: 'Neo.TransientError.Transaction.LockAcquisitionTimeout',
  SESSION_NOT_FOUND: 'Neo.ClientError.Request.Invalid',
  INVALID_WORKSPACE_ID: 'Neo.ClientError.Database.DatabaseNotFound',
  INVALID_SESSION_ID: 'Neo.ClientError.Request.Invalid',
  INVALID_QUERY: 'Neo.ClientError.Request.Invalid',
}

/** The Neo4j status code for one of our codes; an unlisted code falls back by the phase it was raised in. */
export function neo4jStatusCode(code: string, phase?: CypherErrorPhase): string {
  const known = BY_CODE[code]
  if (known) return known
  switch (phase) {
    case 'compile':
      return 'Neo.ClientError.Statement.SemanticError'
    case 'runtime':
    case 'limit':
      return 'Neo.ClientError.Statement.ExecutionFailed'
    default:
      return 'Neo.DatabaseError.General.UnknownError'
  }
}
