"""Human scores: judgment sets (imported or from campaigns), their statistics and panels."""
