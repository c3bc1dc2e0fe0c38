"""Retrieval: keywords -> seed channels fused by RRF -> graph walk and HITS -> scores -> budget packing."""
