"""The referee: matches, tournaments, their results, statistics, openings and the cluster backend."""
