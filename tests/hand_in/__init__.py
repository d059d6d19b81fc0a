"""The hand-in, the hub and the grading service (kit/hand_in, kit/hub, kit/grading_service)."""
