"""Measuring fidelity: record real servers, evaluate, judge, report, export."""
