"""Model providers behind one small interface (see ``base.ModelProvider``)."""
